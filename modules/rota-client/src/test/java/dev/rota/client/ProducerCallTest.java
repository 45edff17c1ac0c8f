package dev.rota.client;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import dev.rota.client.testing.ScriptedServer;
import dev.rota.client.testing.ScriptedServer.Answer;
import dev.rota.client.testing.ScriptedServer.Request;
import java.io.IOException;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * A producer's {@link RotaClient#call}: the call it posts and its poll of the answer, against a
 * scripted server that answers "pending" on cue (a real node's answer depends on a runner).
 */
class ProducerCallTest {
  private static final String ACCEPTED =
      "{\"notificationId\":\"n1\",\"unread\":1,\"duplicate\":false,\"callId\":\"c1\"}";

  /** Accepts the call, answers {@code pendingPolls} polls "pending", then "answered". */
  private static ScriptedServer answeringAfter(int pendingPolls) {
    AtomicInteger polls = new AtomicInteger();
    return new ScriptedServer(
        request -> {
          if (request.method().equals("POST")) {
            return new Answer(202, ACCEPTED);
          }
          if (polls.incrementAndGet() <= pendingPolls) {
            return new Answer(200, "{\"callId\":\"c1\",\"status\":\"pending\"}");
          }
          return new Answer(
              200,
              "{\"callId\":\"c1\",\"status\":\"answered\",\"result\":{\"text\":\"hi\"},"
                  + "\"answeredAt\":\"2026-01-01T00:00:01Z\"}");
        });
  }

  private static RotaClient client(ScriptedServer server) {
    return RotaClient.builder(server.uri()).tenant("acme").build();
  }

  @Test
  void postsTheCallThenPollsUntilItIsAnswered() throws IOException {
    try (ScriptedServer server = answeringAfter(2);
        RotaClient client = client(server)) {
      CallAnswer answer =
          client.call(
              "bot",
              Notification.of("chat.message", Json.MAPPER.readTree("{\"text\":\"hello\"}")),
              Duration.ofMinutes(2),
              Duration.ofMinutes(1));

      assertEquals(CallStatus.ANSWERED, answer.status());
      assertEquals("hi", answer.result().path("text").asText());
      assertEquals("2026-01-01T00:00:01Z", answer.answeredAt().toString());
      List<Request> requests = server.requests();
      assertEquals(4, requests.size(), requests.toString());
      assertEquals("/v1/agents/bot/notifications?tenant=acme", requests.get(0).uri());
      JsonNode posted = Json.MAPPER.readTree(requests.get(0).body());
      assertEquals(120, posted.path("call").path("timeoutSeconds").asInt());
      assertEquals("hello", posted.path("payload").path("text").asText());
      assertTrue(posted.path("dedupeKey").asText().startsWith(RotaClient.GENERATED_KEY_PREFIX));
      for (Request poll : requests.subList(1, 4)) {
        assertEquals("GET", poll.method());
        assertTrue(
            poll.uri().matches("/v1/calls/c1\\?waitSeconds=(59|60)&tenant=acme"), poll.uri());
      }
    }
  }

  @Test
  void answersPendingOnceItsOwnWaitHasPassed() {
    try (ScriptedServer server = answeringAfter(Integer.MAX_VALUE);
        RotaClient client = client(server)) {
      long start = System.nanoTime();
      CallAnswer answer =
          client.call("bot", Notification.of("chat.message"), null, Duration.ofMillis(1500));

      Duration took = Duration.ofNanos(System.nanoTime() - start);
      assertEquals(CallStatus.PENDING, answer.status());
      assertTrue(answer.pending());
      assertTrue(took.compareTo(Duration.ofMillis(1400)) >= 0, took.toString());
      assertTrue(took.compareTo(Duration.ofSeconds(10)) < 0, took.toString());
      assertTrue(server.requests().get(0).body().contains("\"call\":{}"));
      assertTrue(server.requests().get(1).uri().contains("waitSeconds=1"));
    }
  }

  @Test
  void getCallAsksTheServerToWaitAndReadsAFailure() {
    ScriptedServer server =
        new ScriptedServer(
            request ->
                new Answer(
                    200,
                    "{\"callId\":\"c7\",\"status\":\"failed\",\"error\":{\"reason\":"
                        + "\"depth_exceeded\",\"message\":\"too deep\"}}"));
    try (server;
        RotaClient client = RotaClient.builder(server.uri()).build()) {
      CallAnswer answer = client.getCall("c7", 15);

      assertEquals(CallStatus.FAILED, answer.status());
      assertEquals(new CallError("depth_exceeded", "too deep"), answer.error());
      assertEquals("/v1/calls/c7?waitSeconds=15", server.requests().get(0).uri());
      assertThrows(IllegalArgumentException.class, () -> client.getCall("c7", 61));
    }
  }
}
