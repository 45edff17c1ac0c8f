package dev.rota.core.model;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.OptionalLong;
import org.junit.jupiter.api.Test;

class IdsTest {

  @Test
  void aLeaseIdNamesItsAgentAndFencingToken() {
    String leaseId = Ids.leaseId("agent-7", 42);

    assertEquals("agent-7", Ids.agentOf(leaseId).orElseThrow());
    assertEquals(OptionalLong.of(42), Ids.fencingTokenOf(leaseId));
  }

  @Test
  void theLabelOfALeaseForLogsHoldsNoPartOfItsId() {
    String leaseId = Ids.leaseId("agent-7", 42);
    String secret = leaseId.substring(leaseId.indexOf('-') + 1);

    String label = Ids.leaseLabel(leaseId);

    assertEquals("agent agent-7's lease (fencing token 42)", label);
    assertFalse(label.contains(secret), label);
  }

  @Test
  void malformedLeaseIdsHaveNoTokenAndAPlainLabel() {
    assertTrue(Ids.fencingTokenOf("nope").isEmpty());
    assertTrue(Ids.fencingTokenOf(null).isEmpty());
    assertEquals("a malformed lease id", Ids.leaseLabel("nope"));
    String noToken = Ids.leaseId("a1", 1).replace(".1-", ".x-");
    assertEquals("agent a1's lease (fencing token ?)", Ids.leaseLabel(noToken));
  }
}
