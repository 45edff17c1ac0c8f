package dev.rota.client;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;

import com.fasterxml.jackson.databind.JsonNode;
import dev.rota.client.testing.Eventually;
import dev.rota.client.testing.RealNode;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Agents that work together, against a real node: a turn's sends and calls, the target answering,
 * the caller's next turn reading the typed replies, and a producer waiting for an agent's answer.
 */
@ExtendWith(RealNode.class)
class AgentsTogetherTest {
  private static final Duration WAIT = Duration.ofSeconds(30);

  private RotaClient client;
  private String capability;

  /** Every turn's notifications, by agent, in the order the turns ran. */
  private final ConcurrentHashMap<String, List<List<Assignment.Item>>> turns =
      new ConcurrentHashMap<>();

  @BeforeEach
  void connect() {
    client = RotaClient.builder(RealNode.uri()).build();
    capability = "cap-" + UUID.randomUUID();
  }

  @AfterEach
  void disconnect() {
    client.close();
  }

  private String agent(String name) {
    String id = name + "-" + UUID.randomUUID();
    client.registerAgent(id, AgentSpec.create().capabilities(capability));
    return id;
  }

  private RotaRunner runner(ActivationHandler handler) {
    return RotaRunner.builder(
            client,
            activation -> {
              turns
                  .computeIfAbsent(activation.agentId(), a -> new CopyOnWriteArrayList<>())
                  .add(activation.assignment().notifications());
              return handler.handle(activation);
            })
        .runnerId("together-" + capability)
        .mode(RunnerMode.NOTIFICATION)
        .capabilities(capability)
        .slots(2)
        .waitSeconds(1)
        .start();
  }

  private List<Assignment.Item> received(String agentId) {
    return turns.getOrDefault(agentId, List.of()).stream().flatMap(List::stream).toList();
  }

  private static JsonNode json(String text) {
    try {
      return Json.MAPPER.readTree(text);
    } catch (java.io.IOException e) {
      throw new IllegalArgumentException(e);
    }
  }

  @Test
  void aTurnsSendReachesItsTarget() {
    String sender = agent("sender");
    String target = agent("target");
    client.notify(sender, Notification.of("start"));
    try (RotaRunner runner =
        runner(
            activation -> {
              if (activation.agentId().equals(sender)) {
                activation.send(target, "task", json("{\"step\":1}"));
              }
              return Outcome.complete();
            })) {
      Assignment.Item task =
          Eventually.await(
              "the target's turn with the send",
              WAIT,
              () ->
                  received(target).stream()
                      .filter(n -> n.type().equals("task"))
                      .findFirst()
                      .orElse(null));

      assertEquals(1, task.payload().path("step").asInt());
      assertNull(task.call());
    }
  }

  @Test
  void anOrchestratorsGroupOfCallsComesBackAsTypedRepliesInOneTurn() {
    String boss = agent("boss");
    List<String> workers = List.of(agent("worker"), agent("worker"), agent("worker"));
    client.notify(boss, Notification.of("start"));
    try (RotaRunner runner =
        runner(
            activation -> {
              if (!activation.agentId().equals(boss)) {
                return Outcome.complete(json("{\"worker\":\"" + activation.agentId() + "\"}"));
              }
              if (activation.assignment().notifications().stream()
                  .anyMatch(n -> n.type().equals("start"))) {
                for (String worker : workers) {
                  activation.call(
                      worker, "task", json("{\"part\":1}"), CallOptions.inGroup("review"));
                }
              }
              return Outcome.complete();
            })) {
      List<Reply> replies =
          Eventually.await(
              "the boss's turn with the replies",
              WAIT,
              () ->
                  turns.getOrDefault(boss, List.of()).stream()
                      .map(turn -> turn.stream().filter(Assignment.Item::isReply).toList())
                      .filter(r -> !r.isEmpty())
                      .findFirst()
                      .map(r -> r.stream().map(n -> n.reply().orElseThrow()).toList())
                      .orElse(null));

      assertEquals(3, replies.size(), "all three replies in one turn: " + replies);
      assertEquals(
          Set.copyOf(workers),
          replies.stream().map(r -> r.from().agentId()).collect(Collectors.toSet()));
      for (Reply reply : replies) {
        assertEquals(CallStatus.ANSWERED, reply.status());
        assertEquals(reply.from().agentId(), reply.result().path("worker").asText());
        assertNotNull(reply.callId());
      }
      Assignment.Item task = received(workers.get(0)).get(0);
      assertEquals(boss, task.call().from().agentId());
      assertEquals(
          replies.stream()
              .filter(r -> r.from().agentId().equals(workers.get(0)))
              .findFirst()
              .orElseThrow()
              .callId(),
          task.call().callId());
    }
  }

  @Test
  void aProducersCallWaitsForTheAgentsAnswer() {
    String bot = agent("bot");
    try (RotaRunner runner =
        runner(
            activation -> {
              Assignment.Item message = activation.assignment().notifications().get(0);
              String text = message.payload().path("text").asText();
              assertNotNull(message.call());
              return Outcome.complete(json("{\"text\":\"you said " + text + "\"}"));
            })) {
      CallAnswer answer =
          client.call(
              bot,
              Notification.of("chat.message", json("{\"text\":\"hello\"}")),
              Duration.ofMinutes(1),
              WAIT);

      assertEquals(CallStatus.ANSWERED, answer.status(), answer.toString());
      assertEquals("you said hello", answer.result().path("text").asText());
      assertNotNull(answer.answeredAt());
      assertEquals(answer, client.getCall(answer.callId(), 0));
    }
  }
}
