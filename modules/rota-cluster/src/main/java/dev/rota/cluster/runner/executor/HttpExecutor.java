package dev.rota.cluster.runner.executor;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.typesafe.config.Config;
import dev.rota.cluster.runner.Activation;
import dev.rota.cluster.runner.Executor;
import dev.rota.cluster.runner.ExecutorContext;
import dev.rota.cluster.runner.Outcome;
import dev.rota.core.tenant.Tenants;
import java.io.IOException;
import java.net.ConnectException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Proxy;
import java.net.ProxySelector;
import java.net.SocketAddress;
import java.net.URI;
import java.net.UnknownHostException;
import java.net.http.HttpClient;
import java.net.http.HttpConnectTimeoutException;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.HttpTimeoutException;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;
import java.util.concurrent.atomic.AtomicReference;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * POSTs the assignment JSON to the agent's webhook, {@code metadata.webhookUrl}, with headers
 * {@code Rota-Tenant}, {@code Rota-Agent-Id} and {@code Rota-Lease-Id} (an idempotency key: a
 * retried activation gets a new one) plus {@code rota.runners.http.headers} for a shared target, or
 * the tenant's own {@code tenant-targets.<tenant>.headers} for a target bound to the agent's tenant
 * (decision 114; another tenant's target is refused). The response is the outcome:
 *
 * <ul>
 *   <li>2xx completes; the result is the response JSON, {@code {}} for an empty body, or {@code
 *       {"body": "<excerpt>"}} for a body that is not JSON or is longer than {@code
 *       max-reply-bytes} (then with {@code "truncated": true}).
 *   <li>408, 429, 5xx (and any other non-4xx status) fail with {@code retry}; other 4xx with {@code
 *       discard}. A failing response whose body is {@code {"action": ..., "error": ...,
 *       "snoozeSeconds": ...}} fails with that action instead (see {@link OutputJson}).
 *   <li>No answer within {@code timeout}, or no connection: {@code retry}.
 *   <li>An agent without an http(s) {@code metadata.webhookUrl}, or with one outside {@code
 *       allowed-targets}, or whose host resolves to an inward address the list does not name:
 *       {@code discard}, as no retry can help. Such a webhook is never called.
 * </ul>
 *
 * <p>Egress (decision 50): the reply is read up to {@code max-reply-bytes}, and what reaches the
 * agent's history (which producers read) is at most an {@link Excerpt} of it. The host is resolved
 * once, on the blocking dispatcher, and checked by {@link WebhookTargets}; a plain-http call then
 * connects to that very address (it is handed to the JDK client as the request's proxy, so the
 * request line carries the absolute URL and the Host header the name), so a DNS answer that changes
 * between the check and the call cannot aim it inward. An https call lets the client resolve again:
 * TLS then only completes with a server that holds a certificate for the checked name.
 */
public final class HttpExecutor implements Executor {
  private static final Logger log = LoggerFactory.getLogger(HttpExecutor.class);
  static final String NO_WEBHOOK = "agent has no metadata.webhookUrl";

  private final String pool;
  private final HttpClient client;
  private final Duration timeout;
  private final int maxReplyBytes;
  private final WebhookTargets targets;
  private final WebhookTargets.Resolver resolver;
  private final java.util.concurrent.Executor blocking;
  private final PinnedAddresses pinned = new PinnedAddresses();
  private final Map<String, String> headers = new LinkedHashMap<>();
  private final Map<String, Map<String, String>> tenantHeaders = new LinkedHashMap<>();

  public HttpExecutor(ExecutorContext context) {
    this(context, InetAddress::getAllByName);
  }

  /** With its own name resolution: tests show that the address checked is the one called. */
  public HttpExecutor(ExecutorContext context, WebhookTargets.Resolver resolver) {
    Config c = context.config();
    this.pool = context.pool();
    this.timeout = c.getDuration("timeout");
    this.targets = WebhookTargets.fromExecutorSettings(c);
    if (targets.isEmpty()) {
      throw new IllegalArgumentException(
          "pool "
              + pool
              + ": the http executor needs "
              + WebhookTargets.KEY
              + " or "
              + WebhookTargets.TENANT_KEY
              + " (hosts or URL prefixes its webhooks may be at); both are empty");
    }
    long maxReply = c.hasPath("max-reply-bytes") ? c.getBytes("max-reply-bytes") : 65536;
    if (maxReply < 1 || maxReply > 16 * 1024 * 1024) {
      throw new IllegalArgumentException(
          "pool " + pool + ": rota.runners.http.max-reply-bytes must be 1 byte to 16 MiB");
    }
    this.maxReplyBytes = (int) maxReply;
    this.resolver = resolver;
    this.blocking = context.blocking();
    if (c.hasPath("headers")) {
      c.getObject("headers").unwrapped().forEach((k, v) -> headers.put(k, String.valueOf(v)));
    }
    WebhookTargets.tenantSettings(c)
        .forEach(
            (tenant, settings) -> {
              Map<String, String> own = new LinkedHashMap<>();
              if (settings.hasPath("headers")) {
                settings
                    .getObject("headers")
                    .unwrapped()
                    .forEach((k, v) -> own.put(k, String.valueOf(v)));
              }
              tenantHeaders.put(tenant, own);
            });
    // Refuse headers the JDK client will not send (Host, Content-Length, ...) at start, not later.
    headers.forEach(HttpRequest.newBuilder()::header);
    tenantHeaders.values().forEach(own -> own.forEach(HttpRequest.newBuilder()::header));
    this.client =
        HttpClient.newBuilder()
            .connectTimeout(c.getDuration("connect-timeout"))
            .followRedirects(HttpClient.Redirect.NEVER)
            .proxy(pinned)
            .build();
  }

  @Override
  public CompletionStage<Outcome> execute(Activation activation) {
    JsonNode url = activation.metadata().get("webhookUrl");
    if (url == null || !url.isTextual() || url.asText().isBlank()) {
      return CompletableFuture.completedFuture(Outcome.discard(NO_WEBHOOK));
    }
    String tenant = activation.json().path("tenant").asText(Tenants.DEFAULT);
    var refusal = targets.refusal(url.asText(), tenant);
    if (refusal.isPresent()) {
      return CompletableFuture.completedFuture(
          Outcome.discard("agent metadata.webhookUrl " + refusal.get()));
    }
    URI uri = URI.create(url.asText()).normalize();
    // A tenant's own target gets that tenant's headers; a shared one the shared headers.
    Map<String, String> callHeaders =
        targets.boundTo(url.asText(), tenant)
            ? tenantHeaders.getOrDefault(tenant, Map.of())
            : headers;
    String webhook = "webhook " + uri.getHost();
    AtomicReference<CompletableFuture<?>> sent = new AtomicReference<>();
    CompletableFuture<Outcome> result =
        CompletableFuture.supplyAsync(() -> resolve(uri, tenant), blocking)
            .thenCompose(
                address -> {
                  CompletableFuture<HttpResponse<CappedBody.Reply>> call =
                      send(uri, activation, tenant, callHeaders);
                  sent.set(call);
                  return call;
                })
            .handle(
                (response, error) ->
                    error == null ? outcome(webhook, response) : failure(webhook, error));
    result.whenComplete(
        (outcome, error) -> {
          CompletableFuture<?> call = sent.get();
          if (result.isCancelled() && call != null) {
            call.cancel(true);
          }
        });
    return result;
  }

  private InetAddress resolve(URI uri, String tenant) {
    try {
      InetAddress address = targets.resolve(uri, tenant, resolver);
      pinned.pin(uri, address);
      return address;
    } catch (UnknownHostException e) {
      throw new CompletionException(e);
    }
  }

  private CompletableFuture<HttpResponse<CappedBody.Reply>> send(
      URI uri, Activation activation, String tenant, Map<String, String> callHeaders) {
    HttpRequest.Builder request =
        HttpRequest.newBuilder(uri)
            .timeout(timeout)
            .header("Content-Type", "application/json")
            .header("Rota-Tenant", tenant)
            .header("Rota-Agent-Id", activation.agentId())
            .header("Rota-Lease-Id", activation.leaseId())
            .POST(HttpRequest.BodyPublishers.ofByteArray(activation.jsonBytes()));
    callHeaders.forEach(request::header);
    return client.sendAsync(request.build(), CappedBody.handler(maxReplyBytes));
  }

  private static Outcome outcome(String webhook, HttpResponse<CappedBody.Reply> response) {
    int status = response.statusCode();
    CappedBody.Reply reply = response.body();
    String body = reply.text();
    if (status >= 200 && status < 300) {
      if (body.isBlank()) {
        return Outcome.completed(JsonNodeFactory.instance.objectNode());
      }
      var excerpt = JsonNodeFactory.instance.objectNode().put("body", Excerpt.of(body));
      if (reply.truncated()) {
        return Outcome.completed(excerpt.put("truncated", true));
      }
      return Outcome.completed(OutputJson.parse(body).orElse(excerpt));
    }
    String excerpt = Excerpt.of(body);
    String error =
        webhook
            + " answered "
            + status
            + (excerpt.isEmpty() ? "" : ": " + excerpt)
            + (reply.truncated()
                ? " (reply cut at its first " + reply.bytes().length + " bytes)"
                : "");
    boolean permanent = status >= 400 && status < 500 && status != 408 && status != 429;
    Outcome requested =
        OutputJson.requested(reply.truncated() ? "" : body, error)
            .map(HttpExecutor::shortened)
            .orElse(null);
    if (requested != null) {
      return requested;
    }
    return permanent ? Outcome.discard(error) : Outcome.retry(error);
  }

  private static Outcome shortened(Outcome outcome) {
    return outcome instanceof Outcome.Failed f
        ? new Outcome.Failed(f.action(), Excerpt.of(f.error()), f.snoozeSeconds())
        : outcome;
  }

  private Outcome failure(String webhook, Throwable error) {
    Throwable cause = error;
    while (cause instanceof CompletionException && cause.getCause() != null) {
      cause = cause.getCause();
    }
    if (cause instanceof WebhookTargets.RefusedAddress refused) {
      log.warn("pool {}: {} not called: {}", pool, webhook, refused.getMessage());
      return Outcome.discard(
          webhook
              + " not called: its host resolves to an inward address that "
              + WebhookTargets.KEY
              + " does not list");
    }
    if (cause instanceof UnknownHostException) {
      return Outcome.retry("cannot resolve the host of " + webhook);
    }
    if (cause instanceof HttpConnectTimeoutException || cause instanceof ConnectException) {
      return Outcome.retry("cannot connect to " + webhook + ": " + cause);
    }
    if (cause instanceof HttpTimeoutException) {
      return Outcome.retry(webhook + " timed out after " + ProcessExecutor.describe(timeout));
    }
    return Outcome.retry(webhook + " failed: " + Excerpt.of(String.valueOf(cause)));
  }

  /**
   * The checked address of each plain-http host, handed to the client as the proxy of its requests:
   * an HTTP/1.1 server accepts the absolute URL in the request line, and the client never resolves
   * the name itself. https goes direct (a CONNECT tunnel would need a real proxy).
   */
  private static final class PinnedAddresses extends ProxySelector {
    /** Distinct webhook hosts are few; the bound only guards against an unbounded list. */
    private static final int MAX_HOSTS = 10_000;

    private final ConcurrentMap<String, InetSocketAddress> addresses = new ConcurrentHashMap<>();

    void pin(URI uri, InetAddress address) {
      if (addresses.size() >= MAX_HOSTS) {
        addresses.clear();
      }
      addresses.put(key(uri), new InetSocketAddress(address, port(uri)));
    }

    @Override
    public List<Proxy> select(URI uri) {
      if ("https".equalsIgnoreCase(uri.getScheme())) {
        return List.of(Proxy.NO_PROXY);
      }
      InetSocketAddress address = addresses.get(key(uri));
      if (address == null) {
        throw new IllegalStateException("no checked address for " + uri.getHost());
      }
      return List.of(new Proxy(Proxy.Type.HTTP, address));
    }

    @Override
    public void connectFailed(URI uri, SocketAddress address, IOException error) {}

    private static String key(URI uri) {
      return uri.getHost().toLowerCase(Locale.ROOT) + ":" + port(uri);
    }

    private static int port(URI uri) {
      if (uri.getPort() >= 0) {
        return uri.getPort();
      }
      return "https".equalsIgnoreCase(uri.getScheme()) ? 443 : 80;
    }
  }
}
