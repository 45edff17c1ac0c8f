package dev.rota.faults.harness;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.List;

/**
 * Raw HTTP to a node (loopback unless it has an address of its own), every call with its own
 * timeout, for what the SDK does not cover: Pekko Management's {@code /ready} and {@code
 * /cluster/members}, the bare status codes a node answers while it starts ({@code
 * NodeLifecycleTest}), and the claims and completions of the call workload ({@link CallTurns}): a
 * claim's raw notifications show each call's {@code call} object, and a completion carries its
 * {@code send} items. The rest of the workload uses the SDK.
 */
public final class RotaApi {
  private static final ObjectMapper JSON = new ObjectMapper();

  private final HttpClient client =
      HttpClient.newBuilder()
          .version(HttpClient.Version.HTTP_1_1)
          .connectTimeout(Duration.ofSeconds(1))
          .build();

  /** A status and, when the body is JSON, its tree (else null). */
  public record Response(int status, JsonNode body) {
    public boolean ok() {
      return status >= 200 && status < 300;
    }
  }

  /**
   * Sends one request to {@code 127.0.0.1:port}.
   *
   * @throws IOException when no answer came (refused, reset, timed out)
   */
  public Response send(int port, String method, String path, String json, Duration timeout)
      throws IOException {
    return send("127.0.0.1", port, method, path, json, timeout);
  }

  /**
   * Sends one request to {@code host:port}.
   *
   * @throws IOException when no answer came (refused, reset, timed out)
   */
  public Response send(
      String host, int port, String method, String path, String json, Duration timeout)
      throws IOException {
    HttpRequest.Builder request =
        HttpRequest.newBuilder(URI.create("http://" + host + ":" + port + path)).timeout(timeout);
    if (json == null) {
      request.method(method, HttpRequest.BodyPublishers.noBody());
    } else {
      request
          .header("Content-Type", "application/json")
          .method(method, HttpRequest.BodyPublishers.ofString(json));
    }
    try {
      HttpResponse<String> response =
          client.send(request.build(), HttpResponse.BodyHandlers.ofString());
      JsonNode body = null;
      String text = response.body();
      if (text != null && !text.isBlank()) {
        try {
          body = JSON.readTree(text);
        } catch (IOException notJson) {
          body = null;
        }
      }
      return new Response(response.statusCode(), body);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IOException("interrupted", e);
    }
  }

  /**
   * {@code POST /v1/claims} for notifications: the raw answer, {@code {"status", "assignment"}}.
   *
   * @throws IOException when no answer came
   */
  public Response claim(
      String host, int port, String runnerId, int waitSeconds, int leaseSeconds, Duration timeout)
      throws IOException {
    ObjectNode body =
        JSON.createObjectNode()
            .put("runnerId", runnerId)
            .put("mode", "notification")
            .put("waitSeconds", waitSeconds)
            .put("leaseSeconds", leaseSeconds);
    return send(host, port, "POST", "/v1/claims", body.toString(), timeout);
  }

  /**
   * {@code POST /v1/leases/{leaseId}/complete} with a result and the turn's {@code send} items
   * (none: the field is left out).
   *
   * @throws IOException when no answer came (the completion, and its sends, may have been applied)
   */
  public Response complete(
      String host,
      int port,
      String leaseId,
      String runnerId,
      JsonNode result,
      ArrayNode sends,
      Duration timeout)
      throws IOException {
    return complete(host, port, leaseId, runnerId, result, sends, null, timeout);
  }

  /**
   * A completion naming the steered notifications the turn was given ({@code inputSeen}; null for
   * none named: every steered notification is the turn's).
   */
  public Response complete(
      String host,
      int port,
      String leaseId,
      String runnerId,
      JsonNode result,
      ArrayNode sends,
      List<String> inputSeen,
      Duration timeout)
      throws IOException {
    ObjectNode body = JSON.createObjectNode().put("runnerId", runnerId);
    if (result != null) {
      body.set("result", result);
    }
    if (sends != null && !sends.isEmpty()) {
      body.set("send", sends);
    }
    if (inputSeen != null) {
      ArrayNode seen = body.putArray("inputSeen");
      inputSeen.forEach(seen::add);
    }
    return send(
        host, port, "POST", "/v1/leases/" + leaseId + "/complete", body.toString(), timeout);
  }

  /**
   * Whether a 400's message (or body) is a node from before the runner's cursor on new input
   * refusing it: such a node refuses the whole report for the unknown field and does nothing.
   */
  public static boolean refusesInputSeen(String message) {
    return message != null && message.contains("unknown field 'inputSeen'");
  }

  public static String json(Object value) {
    try {
      return JSON.writeValueAsString(value);
    } catch (IOException e) {
      throw new IllegalArgumentException(e);
    }
  }
}
