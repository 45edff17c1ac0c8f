package dev.rota.client;

import static dev.rota.client.Calls.agentPath;
import static dev.rota.client.Calls.body;
import static dev.rota.client.Calls.encode;
import static dev.rota.client.Calls.read;

import dev.rota.client.Calls.Retry;
import java.time.Duration;
import java.util.UUID;

/**
 * A producer's calls to agents (docs/api.md, "Callers outside Rota"): a notification sent as a
 * call, and the long poll of {@code GET /v1/calls/{callId}} that waits for its answer. The call is
 * sent like any notification, retried under one dedupe key, so a retry after a lost answer gets the
 * first call's id rather than calling twice.
 */
final class ProducerCalls {
  /** The longest wait the server takes in one poll. */
  static final int MAX_WAIT_SECONDS = 60;

  private final Calls calls;
  private final Duration readTimeout;

  ProducerCalls(Calls calls, Duration readTimeout) {
    this.calls = calls;
    this.readTimeout = readTimeout;
  }

  NotifyResult start(String agentId, Notification notification, Duration timeout) {
    Notification sent =
        notification.dedupeKey() != null
            ? notification
            : notification.dedupeKey(RotaClient.GENERATED_KEY_PREFIX + UUID.randomUUID());
    byte[] answer =
        calls.call(
            "POST",
            agentPath(agentId) + "/notifications",
            body(Requests.call(sent, timeout)),
            Retry.ANY);
    NotifyResult result = read(answer, NotifyResult.class);
    if (result.callId() == null) {
      throw new RotaException(
          202,
          "bad_answer",
          "the node answered a call without a callId: it predates calls",
          null,
          null);
    }
    return result;
  }

  CallAnswer get(String callId, int waitSeconds) {
    if (waitSeconds < 0 || waitSeconds > MAX_WAIT_SECONDS) {
      throw new IllegalArgumentException("waitSeconds must be 0 to 60: " + waitSeconds);
    }
    Duration timeout = Duration.ofSeconds(waitSeconds).plus(readTimeout);
    String path = "v1/calls/" + encode(callId) + "?waitSeconds=" + waitSeconds;
    return read(calls.call("GET", path, null, Retry.ANY, timeout), CallAnswer.class);
  }

  /** Starts the call, then polls until it is not pending or {@code wait} has passed. */
  CallAnswer call(String agentId, Notification notification, Duration timeout, Duration wait) {
    String callId = start(agentId, notification, timeout).callId();
    long deadline = System.nanoTime() + wait.toNanos();
    while (true) {
      long left = Math.max(0, deadline - System.nanoTime());
      int waitSeconds = (int) Math.min(MAX_WAIT_SECONDS, Duration.ofNanos(left).toSeconds());
      CallAnswer answer = get(callId, waitSeconds);
      if (!answer.pending() || System.nanoTime() >= deadline) {
        return answer;
      }
      if (waitSeconds == 0) {
        // Under a second left: the server answers at once, so wait here rather than spin.
        sleep(Duration.ofNanos(Math.min(left, Duration.ofMillis(200).toNanos())));
      }
    }
  }

  private static void sleep(Duration wait) {
    try {
      Thread.sleep(Math.max(1, wait.toMillis()));
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new RotaException.Connection("interrupted while waiting for a call's answer", true, e);
    }
  }
}
