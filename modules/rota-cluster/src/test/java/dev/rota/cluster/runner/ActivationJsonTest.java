package dev.rota.cluster.runner;

import static org.junit.jupiter.api.Assertions.assertEquals;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.rota.cluster.agent.AgentEntity;
import dev.rota.cluster.assign.ActivationJson;
import dev.rota.core.model.ActivationKind;
import dev.rota.core.model.AgentConfig;
import dev.rota.core.model.Ids;
import dev.rota.core.model.Lease;
import dev.rota.core.model.Notification;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.Test;

class ActivationJsonTest {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final Instant T0 = Instant.parse("2026-11-22T09:00:00Z");

  private static AgentEntity.Granted granted() throws Exception {
    String leaseId = Ids.leaseId("a1", 7);
    Lease lease =
        new Lease(
            leaseId,
            "node/default-1",
            ActivationKind.INBOX,
            7,
            2,
            T0,
            T0.plusSeconds(300),
            300,
            List.of("n1", "n2"));
    var n1 = new Notification("n1", "email", JSON.readTree("{\"subject\":\"hi\"}"), "k1", T0, 1);
    var n2 = new Notification("n2", "tick", null, null, T0.plusMillis(1500), 0);
    var agent =
        new AgentConfig(
            "Agent One",
            List.of("web", "code"),
            5,
            0,
            100,
            3,
            JSON.readTree("{\"webhookUrl\":\"http://x/y\"}"));
    return new AgentEntity.Granted(lease, List.of(n1, n2), agent, false);
  }

  @Test
  void rendersAGrantAsTheAssignmentObjectOfTheApi() throws Exception {
    AgentEntity.Granted granted = granted();
    String expected =
        """
        {"leaseId": "%s", "agentId": "a1", "tenant": "default", "kind": "inbox", "attempt": 2,
         "grantedAt": "2026-11-22T09:00:00Z", "expiresAt": "2026-11-22T09:05:00Z",
         "notifications": [
           {"notificationId": "n1", "type": "email", "payload": {"subject": "hi"},
            "receivedAt": "2026-11-22T09:00:00Z", "attempt": 2},
           {"notificationId": "n2", "type": "tick", "payload": null,
            "receivedAt": "2026-11-22T09:00:01.500Z", "attempt": 1}],
         "more": false,
         "agent": {"name": "Agent One", "capabilities": ["code", "web"],
                   "metadata": {"webhookUrl": "http://x/y"}, "newInput": "queue"}}
        """
            .formatted(granted.lease().leaseId());
    assertEquals(JSON.readTree(expected), ActivationJson.assignment(granted));
  }

  @Test
  void editingTheRenderedJsonLeavesTheGrantUntouched() throws Exception {
    AgentEntity.Granted granted = granted();
    var json = ActivationJson.assignment(granted);
    ((com.fasterxml.jackson.databind.node.ObjectNode) json.get("agent").get("metadata"))
        .put("webhookUrl", "changed");
    assertEquals("http://x/y", granted.agent().metadata().get("webhookUrl").asText());
  }
}
