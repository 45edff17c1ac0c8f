package dev.rota.client;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import dev.rota.client.testing.Eventually;
import dev.rota.client.testing.RealNode;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.UUID;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/** The producer and admin calls against a real node. */
@ExtendWith(RealNode.class)
class RotaClientTest {
  private RotaClient client;

  /** Agents of one test require a capability no other test's runner offers. */
  private String capability;

  @BeforeEach
  void connect() {
    client = RotaClient.builder(RealNode.uri()).build();
    capability = "cap-" + UUID.randomUUID();
  }

  @AfterEach
  void disconnect() {
    client.close();
  }

  private String newAgent() {
    String id = "agent-" + UUID.randomUUID();
    client.registerAgent(id, AgentSpec.create().capabilities(capability));
    return id;
  }

  @Test
  void registersGetsUpdatesAndDeletesAnAgent() {
    String id = "agent-" + UUID.randomUUID();
    Agent created =
        client.registerAgent(
            id,
            AgentSpec.create()
                .name("reviewer")
                .capabilities(capability)
                .maxAttempts(5)
                .metadata(JsonNodeFactory.instance.objectNode().put("model", "m1")));
    assertEquals(id, created.agentId());
    assertEquals("reviewer", created.name());
    assertEquals(List.of(capability), created.capabilities());
    assertEquals(5, created.maxAttempts());
    assertEquals("m1", created.metadata().path("model").asText());

    Agent updated = client.registerAgent(id, AgentSpec.create().priority(7));
    assertEquals(7, updated.priority());
    assertEquals("reviewer", updated.name(), "absent fields keep their values");
    assertEquals("idle", client.getAgent(id).status());

    client.deleteAgent(id);
    assertThrows(RotaException.NotFound.class, () -> client.getAgent(id));
  }

  @Test
  void registersAgentWithAScheduleAndShowsItsNextFire() {
    String id = "agent-" + UUID.randomUUID();
    Agent created =
        client.registerAgent(
            id,
            AgentSpec.create()
                .schedule(
                    "daily_standup",
                    "0 9 * * *",
                    "Europe/Berlin",
                    JsonNodeFactory.instance.objectNode().put("task", "standup")));

    assertEquals(1, created.schedules().size());
    Agent.Schedule schedule = created.schedules().get(0);
    assertEquals("daily_standup", schedule.name());
    assertEquals("Europe/Berlin", schedule.timezone());
    assertEquals("standup", schedule.payload().path("task").asText());
    assertEquals(schedule.nextFireAt(), created.scheduled().nextFireAt());
    assertEquals(false, created.scheduled().due());
    assertThrows(
        RotaException.Invalid.class,
        () -> client.registerAgent(id, AgentSpec.create().schedule("x", "not cron", null, null)));
  }

  @Test
  void listsRegisteredAgentsPageByPage() {
    for (int i = 0; i < 3; i++) {
      newAgent();
    }
    AgentPage first =
        Eventually.await(
            "three agents listed",
            Duration.ofSeconds(20),
            () -> {
              AgentPage page = client.listAgents(AgentQuery.stalest().limit(2));
              return page.next() != null ? page : null;
            });
    assertEquals(2, first.agents().size());
    AgentPage second = client.listAgents(AgentQuery.stalest().limit(2).after(first.next()));
    assertFalse(second.agents().isEmpty());
    assertFalse(first.agents().contains(second.agents().get(0)));
  }

  @Test
  void notifiesAndRecognisesADuplicateByItsDedupeKey() {
    String id = newAgent();
    NotifyResult first =
        client.notify(
            id,
            Notification.of("mention", JsonNodeFactory.instance.objectNode().put("postId", "p9"))
                .dedupeKey("p9"));
    NotifyResult again = client.notify(id, Notification.of("mention").dedupeKey("p9"));

    assertFalse(first.duplicate());
    assertTrue(again.duplicate());
    assertEquals(first.notificationId(), again.notificationId());
    assertEquals(1, client.getAgent(id).inbox().unread());
  }

  @Test
  void mapsErrorAnswersToTypedExceptions() {
    RotaException.NotFound unknown =
        assertThrows(
            RotaException.NotFound.class,
            () -> client.notify("no-such-agent-" + UUID.randomUUID(), Notification.of("x")));
    assertEquals(404, unknown.status());
    assertEquals("not_found", unknown.code());

    RotaException.Invalid invalid =
        assertThrows(
            RotaException.Invalid.class,
            () -> client.registerAgent(newAgent(), AgentSpec.create().maxAttempts(0)));
    assertTrue(invalid.getMessage().contains("maxAttempts"), invalid.getMessage());

    assertThrows(
        RotaException.NotFound.class, () -> client.heartbeat("no-such-lease", "r-" + capability));
  }

  @Test
  void refusesAReportByAnotherRunnerWithLeaseNotHeld() {
    String id = newAgent();
    client.notify(id, Notification.of("mention"));
    Assignment lease = claim(id);

    RotaException.LeaseNotHeld notHeld =
        assertThrows(
            RotaException.LeaseNotHeld.class,
            () -> client.complete(lease.leaseId(), "someone-else", null));
    assertEquals(409, notHeld.status());
    assertEquals("lease_not_held", notHeld.code());
    assertThrows(
        RotaException.LeaseNotHeld.class, () -> client.heartbeat(lease.leaseId(), "someone-else"));
    assertEquals("r-" + capability, client.getAgent(id).lease().runnerId());
    client.complete(lease.leaseId(), "r-" + capability, null);
  }

  @Test
  void refusesToDeleteALeasedAgentAndRefusesAStaleLease() {
    String id = newAgent();
    client.notify(id, Notification.of("mention"));
    Assignment lease = claim(id);

    String runner = "r-" + capability;
    assertThrows(RotaException.Conflict.class, () -> client.deleteAgent(id));
    client.complete(lease.leaseId(), runner, null);
    assertThrows(
        RotaException.LeaseLost.class, () -> client.complete(lease.leaseId(), runner, null));
    assertThrows(RotaException.LeaseLost.class, () -> client.heartbeat(lease.leaseId(), runner));
  }

  @Test
  void pausesAndResumesOneAgentAndTheSystem() {
    String id = newAgent();
    assertEquals("paused", client.pauseAgent(id).status());
    assertEquals("idle", client.resumeAgent(id).status());

    try {
      assertTrue(client.pause());
      ClaimResult paused =
          client.claim("r-" + capability, RunnerMode.HYBRID, Set.of(capability), 0, null);
      assertTrue(paused.paused(), paused.toString());
      assertTrue(client.stats().paused());
    } finally {
      assertFalse(client.resume());
    }
  }

  @Test
  void readsStats() {
    newAgent();
    Stats stats = client.stats();
    assertTrue(stats.agents().registered() >= 1, "the agent just registered: " + stats);
    assertEquals(1, stats.cluster().nodes());
    assertTrue(stats.cluster().partitions() > 0);
  }

  @Test
  void listsAndRedrivesADeadLetter() {
    String id = "agent-" + UUID.randomUUID();
    client.registerAgent(id, AgentSpec.create().capabilities(capability).maxAttempts(1));
    client.notify(id, Notification.of("mention"));
    client.fail(claim(id).leaseId(), "r-" + capability, Outcome.cancel("not for this agent"));

    DeadLetter dead =
        Eventually.await(
            "the dead letter listed",
            Duration.ofSeconds(20),
            () -> client.deadLetters(id, 10).stream().findFirst().orElse(null));
    assertEquals(id, dead.agentId());
    assertEquals("mention", dead.type());
    assertTrue(dead.reason().contains("not for this agent"), dead.reason());
    assertEquals(0, client.getAgent(id).inbox().unread());

    client.redrive(dead.id());
    assertEquals(1, client.getAgent(id).inbox().unread());
    assertThrows(
        RotaException.NotFound.class, () -> client.redrive("no-such-dead-letter-" + capability));
  }

  @Test
  void discardsADeadLetterForGood() {
    String id = "agent-" + UUID.randomUUID();
    client.registerAgent(id, AgentSpec.create().capabilities(capability).maxAttempts(1));
    client.notify(id, Notification.of("mention"));
    client.fail(claim(id).leaseId(), "r-" + capability, Outcome.cancel("not wanted"));
    DeadLetter dead =
        Eventually.await(
            "the dead letter listed",
            Duration.ofSeconds(20),
            () -> client.deadLetters(id, 10).stream().findFirst().orElse(null));

    client.discard(dead.id());

    assertEquals(0, client.getAgent(id).deadLetters());
    assertEquals(0, client.getAgent(id).inbox().unread());
    assertThrows(RotaException.NotFound.class, () -> client.discard(dead.id()));
    assertThrows(RotaException.NotFound.class, () -> client.redrive(dead.id()));
    Eventually.await(
        "the discarded letter leaves the list",
        Duration.ofSeconds(20),
        () -> client.deadLetters(id, 10).isEmpty() ? true : null);
  }

  @Test
  void explainIsEitherServedOrAClearNotFound() {
    String id = newAgent();
    try {
      Explanation explanation = client.explain(id);
      assertEquals(id, explanation.agentId());
    } catch (RotaException.NotFound e) {
      assertEquals(404, e.status()); // the server does not serve explain yet
    }
  }

  @Test
  void readsAnAgentsHistory() {
    String id = newAgent();
    client.notify(id, Notification.of("mention"));
    assertFalse(client.history(id, 10).isEmpty());
  }

  private Assignment claim(String agentId) {
    ClaimResult result =
        client.claim("r-" + capability, RunnerMode.NOTIFICATION, Set.of(capability), 10, 30);
    assertTrue(result.assigned(), result.toString());
    assertEquals(agentId, result.assignment().agentId());
    assertNotNull(result.assignment().expiresAt());
    return result.assignment();
  }
}
