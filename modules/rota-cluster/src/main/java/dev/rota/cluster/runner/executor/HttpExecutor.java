package dev.rota.cluster.runner.executor;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.typesafe.config.Config;
import dev.rota.cluster.runner.Activation;
import dev.rota.cluster.runner.Executor;
import dev.rota.cluster.runner.ExecutorContext;
import dev.rota.cluster.runner.Outcome;
import java.net.ConnectException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpConnectTimeoutException;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.HttpTimeoutException;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;

/**
 * POSTs the assignment JSON to the agent's webhook, {@code metadata.webhookUrl}, with headers
 * {@code Rota-Agent-Id} and {@code Rota-Lease-Id} (an idempotency key: a retried activation gets a
 * new one) plus {@code rota.runners.http.headers}. The response is the outcome:
 *
 * <ul>
 *   <li>2xx completes; the result is the response JSON, {@code {}} for an empty body, or {@code
 *       {"body": "<text>"}} for a body that is not JSON.
 *   <li>408, 429, 5xx (and any other non-4xx status) fail with {@code retry}; other 4xx with {@code
 *       discard}. A failing response whose body is {@code {"action": ..., "error": ...,
 *       "snoozeSeconds": ...}} fails with that action instead (see {@link OutputJson}).
 *   <li>No answer within {@code timeout}, or no connection: {@code retry}.
 *   <li>An agent without an http(s) {@code metadata.webhookUrl}: {@code discard}, as no retry can
 *       help.
 * </ul>
 *
 * <p>Uses the JDK's asynchronous {@link HttpClient}: no thread waits for a webhook.
 */
public final class HttpExecutor implements Executor {
  static final String NO_WEBHOOK = "agent has no metadata.webhookUrl";
  private static final int BODY_TAIL = 512;

  private final HttpClient client;
  private final Duration timeout;
  private final Map<String, String> headers = new LinkedHashMap<>();

  public HttpExecutor(ExecutorContext context) {
    Config c = context.config();
    this.timeout = c.getDuration("timeout");
    if (c.hasPath("headers")) {
      c.getObject("headers").unwrapped().forEach((k, v) -> headers.put(k, String.valueOf(v)));
    }
    // Refuse headers the JDK client will not send (Host, Content-Length, ...) at start, not later.
    headers.forEach(HttpRequest.newBuilder()::header);
    this.client =
        HttpClient.newBuilder()
            .connectTimeout(c.getDuration("connect-timeout"))
            .followRedirects(HttpClient.Redirect.NEVER)
            .build();
  }

  @Override
  public CompletionStage<Outcome> execute(Activation activation) {
    JsonNode url = activation.metadata().get("webhookUrl");
    if (url == null || !url.isTextual() || url.asText().isBlank()) {
      return CompletableFuture.completedFuture(Outcome.discard(NO_WEBHOOK));
    }
    URI uri;
    try {
      uri = URI.create(url.asText());
    } catch (IllegalArgumentException e) {
      return CompletableFuture.completedFuture(
          Outcome.discard("agent metadata.webhookUrl is not a URL"));
    }
    if (!"http".equalsIgnoreCase(uri.getScheme()) && !"https".equalsIgnoreCase(uri.getScheme())) {
      return CompletableFuture.completedFuture(
          Outcome.discard("agent metadata.webhookUrl is not an http(s) URL"));
    }
    HttpRequest.Builder request =
        HttpRequest.newBuilder(uri)
            .timeout(timeout)
            .header("Content-Type", "application/json")
            .header("Rota-Agent-Id", activation.agentId())
            .header("Rota-Lease-Id", activation.leaseId())
            .POST(HttpRequest.BodyPublishers.ofByteArray(activation.jsonBytes()));
    headers.forEach(request::header);
    CompletableFuture<HttpResponse<String>> sent =
        client.sendAsync(request.build(), HttpResponse.BodyHandlers.ofString());
    String webhook = "webhook " + uri.getHost();
    CompletableFuture<Outcome> result =
        sent.handle(
            (response, error) ->
                error == null ? outcome(webhook, response) : failure(webhook, error));
    result.whenComplete(
        (outcome, error) -> {
          if (result.isCancelled()) {
            sent.cancel(true);
          }
        });
    return result;
  }

  private static Outcome outcome(String webhook, HttpResponse<String> response) {
    int status = response.statusCode();
    String body = response.body() == null ? "" : response.body();
    if (status >= 200 && status < 300) {
      if (body.isBlank()) {
        return Outcome.completed(JsonNodeFactory.instance.objectNode());
      }
      return Outcome.completed(
          OutputJson.parse(body)
              .orElseGet(() -> JsonNodeFactory.instance.objectNode().put("body", body)));
    }
    String error =
        webhook
            + " answered "
            + status
            + (body.isBlank() ? "" : ": " + OutputJson.tail(body, BODY_TAIL));
    boolean permanent = status >= 400 && status < 500 && status != 408 && status != 429;
    return OutputJson.requested(body, error)
        .orElseGet(() -> permanent ? Outcome.discard(error) : Outcome.retry(error));
  }

  private Outcome failure(String webhook, Throwable error) {
    Throwable cause =
        error instanceof CompletionException && error.getCause() != null ? error.getCause() : error;
    if (cause instanceof HttpConnectTimeoutException || cause instanceof ConnectException) {
      return Outcome.retry("cannot connect to " + webhook + ": " + cause);
    }
    if (cause instanceof HttpTimeoutException) {
      return Outcome.retry(webhook + " timed out after " + ProcessExecutor.describe(timeout));
    }
    return Outcome.retry(webhook + " failed: " + cause);
  }
}
