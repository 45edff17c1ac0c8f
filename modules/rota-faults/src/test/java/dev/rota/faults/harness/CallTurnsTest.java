package dev.rota.faults.harness;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.rota.faults.history.Event.Carried;
import dev.rota.faults.history.Event.Sent;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** What the call workload's turns send, read from raw claims as a node answers them. */
class CallTurnsTest {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final List<String> CALL_AGENTS = List.of("a", "b", "c", "d", "e");

  private final CallTurns turns = new CallTurns(CALL_AGENTS);

  @Test
  void aCallAgentsTurnWithAProducersNotificationSendsCallsOrFansOut() throws Exception {
    Set<Integer> sizes = new HashSet<>();
    for (int i = 0; i < 200; i++) {
      CallTurns.Turn turn = turns.plan(claimed("L" + i, "a", "[" + producer("a-" + i) + "]"));
      List<Sent.Send> sends = turn.sends();
      sizes.add(sends.size());
      assertEquals(sends.size(), turn.send().size());
      for (int s = 0; s < sends.size(); s++) {
        Sent.Send send = sends.get(s);
        JsonNode item = turn.send().get(s);
        assertEquals("L" + i + "-s" + s, send.key());
        assertEquals(send.key(), item.path("payload").path("k").asText());
        assertEquals(send.target(), item.path("agentId").asText());
        assertTrue(!send.target().equals("a") && CALL_AGENTS.contains(send.target()));
        assertEquals(send.call(), item.has("call"));
        if (sends.size() == 3) {
          assertEquals("g", item.path("call").path("group").asText());
        }
      }
      if (sends.size() == 3) {
        assertEquals(3, sends.stream().map(Sent.Send::target).distinct().count());
      }
    }
    // A plain send or a chain's first call (one item), or a group of three.
    assertEquals(Set.of(1, 3), sizes);
  }

  @Test
  void anAgentOutsideTheCallAgentsSendsNothing() throws Exception {
    CallTurns.Turn turn = turns.plan(claimed("L1", "z", "[" + producer("z-0") + "]"));
    assertTrue(turn.sends().isEmpty());
  }

  @Test
  void aChainGoesOnToAThirdAgentAndItsEndTellsTheOriginItIsDone() throws Exception {
    String chainCall =
        "{\"notificationId\":\"n1\",\"type\":\"fault-send\","
            + "\"payload\":{\"k\":\"L0-s0\",\"plan\":\"chain\",\"origin\":\"a\"},"
            + "\"call\":{\"callId\":\"c1\",\"from\":{\"tenant\":\"default\",\"agentId\":\"a\"},"
            + "\"depth\":1}}";
    CallTurns.Claimed atB = claimed("L1", "b", "[" + chainCall + "]");
    CallTurns.Turn hop = turns.plan(atB);
    assertEquals(1, hop.sends().size());
    Sent.Send toC = hop.sends().get(0);
    assertTrue(toC.call());
    assertTrue(!Set.of("a", "b").contains(toC.target()));
    assertEquals(
        new Carried("L1", "b", List.of(new Carried.Call("L0-s0", "c1", "a", 1)), List.of(), 5),
        atB.carried(5));

    String endCall =
        "{\"type\":\"fault-send\",\"payload\":{\"k\":\"L1-s0\",\"plan\":\"chain-end\","
            + "\"origin\":\"a\"},\"call\":{\"callId\":\"c2\",\"from\":{\"agentId\":\"b\"},"
            + "\"depth\":2}}";
    CallTurns.Turn atC = turns.plan(claimed("L2", toC.target(), "[" + endCall + "]"));
    assertTrue(atC.sends().isEmpty());
    assertEquals("a", atC.result().path("chains").path("c2").asText());

    String reply =
        "{\"type\":\"rota.reply\",\"payload\":{\"callId\":\"c2\",\"from\":{\"agentId\":\""
            + toC.target()
            + "\"},\"status\":\"answered\",\"result\":"
            + atC.result()
            + "}}";
    CallTurns.Claimed back = claimed("L3", "b", "[" + reply + "]");
    CallTurns.Turn done = turns.plan(back);
    assertEquals(List.of(new Sent.Send("L3-s0", "a", false, null)), done.sends());
    assertEquals(
        List.of(new Carried.Reply("c2", toC.target(), "answered")), back.carried(0).replies());
    assertTrue(back.keys().isEmpty());
  }

  @Test
  void aTurnWithoutCallsOrRepliesCarriesNothingToRecord() throws Exception {
    assertNull(claimed("L1", "a", "[" + producer("a-0") + "]").carried(0));
  }

  private static String producer(String key) {
    return "{\"notificationId\":\"n\",\"type\":\"fault\",\"payload\":{\"k\":\"" + key + "\"}}";
  }

  private static CallTurns.Claimed claimed(String lease, String agent, String notifications)
      throws Exception {
    return new CallTurns.Claimed(lease, agent, 0, 5_000, JSON.readTree(notifications));
  }
}
