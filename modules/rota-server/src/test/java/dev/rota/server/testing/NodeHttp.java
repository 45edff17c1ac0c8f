package dev.rota.server.testing;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;

/** A plain HTTP client of one node's API on loopback, for tests of a real node. */
public final class NodeHttp {
  private static final ObjectMapper MAPPER = new ObjectMapper();
  private static final Duration TIMEOUT = Duration.ofSeconds(30);

  private final HttpClient http = HttpClient.newBuilder().connectTimeout(TIMEOUT).build();
  private final int port;

  public NodeHttp(int port) {
    this.port = port;
  }

  public String base() {
    return "http://127.0.0.1:" + port;
  }

  public HttpResponse<String> send(String method, String path, String body) {
    HttpRequest.Builder request =
        HttpRequest.newBuilder(URI.create(base() + path))
            .timeout(TIMEOUT)
            .method(
                method,
                body == null
                    ? HttpRequest.BodyPublishers.noBody()
                    : HttpRequest.BodyPublishers.ofString(body));
    if (body != null) {
      request.header("Content-Type", "application/json");
    }
    try {
      return http.send(request.build(), HttpResponse.BodyHandlers.ofString());
    } catch (IOException e) {
      throw new UncheckedIOException(method + " " + path + " failed", e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted", e);
    }
  }

  /** The JSON answer of a request that must succeed with {@code status}. */
  public JsonNode json(String method, String path, String body, int status) {
    HttpResponse<String> response = send(method, path, body);
    if (response.statusCode() != status) {
      throw new AssertionError(
          method + " " + path + " answered " + response.statusCode() + ": " + response.body());
    }
    try {
      return response.body().isEmpty() ? null : MAPPER.readTree(response.body());
    } catch (IOException e) {
      throw new AssertionError("not JSON: " + response.body(), e);
    }
  }

  /** Registers an agent requiring {@code capability} and sends it {@code notifications}. */
  public void agentWithInbox(String agentId, String capability, int notifications) {
    int status =
        send("PUT", "/v1/agents/" + agentId, "{\"capabilities\":[\"" + capability + "\"]}")
            .statusCode();
    if (status != 201 && status != 200) {
      throw new AssertionError("PUT agent answered " + status);
    }
    for (int i = 0; i < notifications; i++) {
      json(
          "POST",
          "/v1/agents/" + agentId + "/notifications",
          "{\"type\":\"mention\",\"payload\":{\"n\":" + i + "}}",
          202);
    }
  }
}
