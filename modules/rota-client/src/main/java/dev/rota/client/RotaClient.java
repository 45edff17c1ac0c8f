package dev.rota.client;

import static dev.rota.client.Calls.agentPath;
import static dev.rota.client.Calls.body;
import static dev.rota.client.Calls.eventsPath;
import static dev.rota.client.Calls.read;

import com.fasterxml.jackson.core.type.TypeReference;
import com.fasterxml.jackson.databind.JsonNode;
import dev.rota.client.Calls.Retry;
import java.net.URI;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.function.Consumer;

/**
 * The client of the HTTP API (docs/api.md) for producers, admins, runners. Thread-safe; share one
 * per process. Each call blocks its thread; the client starts no thread of its own (an event
 * {@linkplain #subscribe subscription} runs on one thread that it owns and stops).
 *
 * <pre>{@code
 * try (RotaClient rota = RotaClient.builder(URI.create("http://localhost:8080"))
 *     .token(System.getenv("ROTA_TOKEN"))
 *     .build()) {
 *   rota.registerAgent("reviewer-1", AgentSpec.create().capabilities("code"));
 *   rota.notify("reviewer-1", Notification.of("mention").dedupeKey("post-p9"));
 *   System.out.println(rota.stats().inbox().unread());
 * }
 * }</pre>
 *
 * <p>Errors are {@link RotaException} subclasses, one per error code. Requests that cannot
 * duplicate anything are retried on 503 {@code unavailable} and on connection failures, waiting the
 * server's {@code Retry-After} (capped) or a growing back-off: reads, registrations, pause and
 * resume, deletions, and notifications (a notification sent without a {@code dedupeKey} gets a
 * generated one, {@code sdk-<uuid>}, so that a retry of one the node accepted before answering 503
 * is a duplicate, not a second notification). A claim and lease reports are retried only on 503 or
 * when no connection could be opened.
 */
public final class RotaClient implements AutoCloseable {
  /** The start of the dedupeKey {@link #notify} generates for a notification sent without one. */
  public static final String GENERATED_KEY_PREFIX = "sdk-";

  private static final TypeReference<Map<String, List<JsonNode>>> HISTORY =
      new TypeReference<>() {};

  private final HttpTransport http;
  final Duration readTimeout;
  final Calls calls;
  private final RunnerCalls runner;
  private final AdminCalls admin;
  private final ProducerCalls producer;
  private final OpenStreams open = new OpenStreams();

  private RotaClient(Builder builder) {
    this.http = new HttpTransport(builder.baseUri, builder.token, builder.connectTimeout);
    Calls shared =
        new Calls(
            http, builder.readTimeout, builder.retries, builder.initialBackoff, builder.maxBackoff);
    this.calls = shared.forTenant(builder.tenant);
    this.readTimeout = builder.readTimeout;
    this.runner = new RunnerCalls(calls, builder.readTimeout);
    this.admin = new AdminCalls(calls);
    this.producer = new ProducerCalls(calls, builder.readTimeout);
  }

  /** A client of the node (or load balancer) at {@code baseUri}, e.g. {@code http://host:8080}. */
  public static Builder builder(URI baseUri) {
    return new Builder(baseUri);
  }

  /** The API's base URI. */
  public URI baseUri() {
    return http.base();
  }

  // ---- agents (role producer) ----

  /** Registers an agent, or updates it: fields absent from {@code spec} keep their values. */
  public Agent registerAgent(String agentId, AgentSpec spec) {
    return read(calls.call("PUT", agentPath(agentId), body(spec), Retry.ANY), Agent.class);
  }

  /**
   * @throws RotaException.NotFound if no such agent is registered
   */
  public Agent getAgent(String agentId) {
    return read(calls.call("GET", agentPath(agentId), null, Retry.ANY), Agent.class);
  }

  /** One page of agents; follow {@link AgentPage#next()} with {@link AgentQuery#after}. */
  public AgentPage listAgents(AgentQuery query) {
    String path = Requests.agentsPath(query);
    return read(calls.call("GET", path, null, Retry.ANY), AgentPage.class);
  }

  /**
   * Deletes an agent and its inbox.
   *
   * @throws RotaException.Conflict while it holds a lease
   * @throws RotaException.NotFound if no such agent is registered
   */
  public void deleteAgent(String agentId) {
    calls.call("DELETE", agentPath(agentId), null, Retry.ANY_DELETE);
  }

  /** Pauses one agent: it is not activated until {@link #resumeAgent}. */
  public Agent pauseAgent(String agentId) {
    return read(calls.call("POST", agentPath(agentId) + "/pause", null, Retry.ANY), Agent.class);
  }

  public Agent resumeAgent(String agentId) {
    return read(calls.call("POST", agentPath(agentId) + "/resume", null, Retry.ANY), Agent.class);
  }

  /**
   * Why the agent is or is not being picked.
   *
   * @throws RotaException.NotFound for an unknown agent, or from a server without the endpoint
   */
  public Explanation explain(String agentId) {
    return read(
        calls.call("GET", agentPath(agentId) + "/explain", null, Retry.ANY), Explanation.class);
  }

  /** The agent's recent events, newest first, as the server's JSON objects. */
  public List<JsonNode> history(String agentId, int limit) {
    byte[] body =
        calls.call("GET", agentPath(agentId) + "/history?limit=" + limit, null, Retry.ANY);
    return read(body, HISTORY).getOrDefault("events", List.of());
  }

  /**
   * Puts a notification in an agent's inbox; returns once it is persisted (202).
   *
   * @throws RotaException.NotFound for an unknown agent
   * @throws RotaException.InboxFull when the inbox is at its {@code maxInboxDepth}
   */
  public NotifyResult notify(String agentId, Notification notification) {
    // A 503 may come after the node accepted the notification (an answer that ran out of time): a
    // retry is safe only under the same dedupeKey, so one is generated when the caller gave none.
    Notification sent =
        notification.dedupeKey() != null
            ? notification
            : notification.dedupeKey(GENERATED_KEY_PREFIX + UUID.randomUUID());
    byte[] body = calls.call("POST", agentPath(agentId) + "/notifications", body(sent), Retry.ANY);
    return read(body, NotifyResult.class);
  }

  /**
   * Calls an agent from outside Rota and waits for its answer: posts {@code notification} as a call
   * ({@code "call": {"timeoutSeconds"}}), then long-polls {@code GET /v1/calls/{callId}} until the
   * call is answered, failed or timed out, or until {@code wait} has passed, whichever is first.
   * The answer is the result of the agent's turn that completed with the notification.
   *
   * <pre>{@code
   * CallAnswer answer = rota.call("support-bot", Notification.of("chat.message", message),
   *     Duration.ofMinutes(5), Duration.ofSeconds(90));
   * if (answer.answered()) show(answer.result());
   * }</pre>
   *
   * @param timeout the call's own timeout at the server (1 s to 24 h); null for the server's
   *     default
   * @param wait how long this method waits; the answer is {@link CallStatus#PENDING} when it passed
   *     first (ask again with {@link #getCall})
   */
  public CallAnswer call(
      String agentId, Notification notification, Duration timeout, Duration wait) {
    return producer.call(agentId, notification, timeout, wait);
  }

  /**
   * Sends {@code notification} as a call without waiting for the answer; the answer's {@link
   * NotifyResult#callId()} is what {@link #getCall} takes.
   */
  public NotifyResult startCall(String agentId, Notification notification, Duration timeout) {
    return producer.start(agentId, notification, timeout);
  }

  /**
   * Where a call stands ({@code GET /v1/calls/{callId}}), waiting up to {@code waitSeconds} (0–60)
   * at the server for its answer.
   *
   * @throws RotaException.NotFound for an unknown call, or one of another tenant
   */
  public CallAnswer getCall(String callId, int waitSeconds) {
    return producer.get(callId, waitSeconds);
  }

  // ---- admin ----

  public Stats stats() {
    return admin.stats();
  }

  /** Pauses the whole system: running activations finish, claims answer {@code paused}. */
  public boolean pause() {
    return admin.setPaused(true);
  }

  public boolean resume() {
    return admin.setPaused(false);
  }

  /**
   * Dead letters, newest first.
   *
   * @param agentId only this agent's; null for all
   * @param limit at most this many; null for the server's default
   */
  public List<DeadLetter> deadLetters(String agentId, Integer limit) {
    return admin.deadLetters(agentId, limit);
  }

  /** Puts a dead letter back into its agent's inbox with fresh attempts. */
  public void redrive(String deadLetterId) {
    admin.redrive(deadLetterId);
  }

  /**
   * Removes a dead letter for good: its notification is never delivered. Retried like {@link
   * #deleteAgent}, since removing it twice removes nothing more.
   *
   * @throws RotaException.NotFound if there is no such dead letter
   */
  public void discard(String deadLetterId) {
    admin.discard(deadLetterId);
  }

  /** The tenant admin calls: list, view, set and delete tenants. */
  public TenantAdmin tenants() {
    return new TenantAdmin(calls);
  }

  /** {@code GET /admin/pools} as the server's JSON. */
  public JsonNode pools() {
    return admin.get("pools");
  }

  /**
   * A runner reports its own health: degraded for {@code duration} with a reason (its claims are
   * answered {@code none} with reason {@code degraded} meanwhile), or healthy again ({@code
   * degraded} false; reason and duration are ignored). Returns the server's answer ({@code
   * runnerId}, {@code status}, {@code degraded}).
   */
  public JsonNode reportHealth(
      String runnerId, boolean degraded, String reason, Duration duration) {
    return runner.reportHealth(runnerId, degraded, reason, duration);
  }

  /** Gives the runner no new work until it is restored; its current lease runs on. */
  public JsonNode drainRunner(String runnerId) {
    return admin.runner(runnerId, "drain");
  }

  /** Clears a runner's degradation or drain. */
  public JsonNode restoreRunner(String runnerId) {
    return admin.runner(runnerId, "restore");
  }

  /** {@code GET /admin/runners} as the server's JSON. */
  public JsonNode runners() {
    return admin.get("runners");
  }

  /**
   * The event stream as a blocking iterator that reconnects by itself, resuming after the last
   * event it returned ({@code Last-Event-ID}). Close it to stop; closing the client closes it too.
   *
   * <pre>{@code
   * try (EventStream events = client.events(EventQuery.all().types("activation.failed"))) {
   *   while (events.hasNext()) {
   *     RotaEvent e = events.next();
   *     System.out.println(e.type() + " " + e.agentId());
   *   }
   * }
   * }</pre>
   */
  public EventStream events(EventQuery query) {
    calls.requireOpen();
    return open.add(new EventStream(http, eventsPath(query), query.since(), open::remove));
  }

  /**
   * Follows the event stream on a thread of its own, calling {@code listener} for every event in
   * order, until the returned subscription (or this client) is closed.
   */
  public EventSubscription subscribe(EventQuery query, Consumer<RotaEvent> listener) {
    return open.add(new EventSubscription(events(query), listener, open::remove));
  }

  // ---- runners (role runner); RotaRunner uses these ----

  /**
   * Asks for work, waiting up to {@code waitSeconds} at the server.
   *
   * @param leaseSeconds null for the server's default
   */
  public ClaimResult claim(
      String runnerId,
      RunnerMode mode,
      Set<String> capabilities,
      int waitSeconds,
      Integer leaseSeconds) {
    return runner.claim(runnerId, mode, capabilities, waitSeconds, leaseSeconds);
  }

  /**
   * Extends a lease by its own length from now; returns the new expiry (server clock).
   *
   * @param runnerId the runner id the lease was claimed with
   * @throws RotaException.LeaseLost if the lease expired or was superseded
   * @throws RotaException.LeaseNotHeld if the lease was granted to another runner
   */
  public Instant heartbeat(String leaseId, String runnerId) {
    return LeaseInput.of(this).heartbeat(leaseId, runnerId).expiresAt();
  }

  /**
   * Completes the activation: every carried notification is read.
   *
   * @param runnerId the runner id the lease was claimed with
   * @param result any JSON for the agent's history; null for none
   * @throws RotaException.LeaseLost if the lease expired or was superseded
   * @throws RotaException.LeaseNotHeld if the lease was granted to another runner
   */
  public void complete(String leaseId, String runnerId, JsonNode result) {
    runner.complete(leaseId, runnerId, result, List.of(), List.of());
  }

  /**
   * Completes the activation and sends {@code sends} with it, in one durable write: they go out if
   * and only if the completion is accepted (docs/api.md, "Agents that work together").
   *
   * @throws RotaException.Invalid naming the item's field when a send is not a valid notification
   *     (then nothing is completed nor sent)
   */
  public void complete(String leaseId, String runnerId, JsonNode result, List<Send> sends) {
    runner.complete(leaseId, runnerId, result, sends, List.of());
  }

  /**
   * Completes the activation with {@code sends}, leaving the calls named in {@code defer} (carried
   * by this turn, or owed from an earlier one: {@link Assignment#owes()}) unanswered: they stay
   * owed, and a later completion that does not defer them answers them (docs/api.md, "Deferred
   * answers").
   *
   * @throws RotaException.Invalid naming {@code defer[i]} when the agent owes no such call (then
   *     nothing is completed nor sent)
   */
  public void complete(
      String leaseId, String runnerId, JsonNode result, List<Send> sends, List<String> defer) {
    runner.complete(leaseId, runnerId, result, sends, defer);
  }

  /**
   * Fails the activation with the outcome's action ({@link Outcome#retry}, {@code cancel}, {@code
   * discard} or {@code snooze}).
   *
   * @param runnerId the runner id the lease was claimed with
   * @throws IllegalArgumentException if {@code outcome} is a completion
   * @throws RotaException.LeaseLost if the lease expired or was superseded
   * @throws RotaException.LeaseNotHeld if the lease was granted to another runner
   */
  public void fail(String leaseId, String runnerId, Outcome outcome) {
    runner.fail(leaseId, runnerId, outcome);
  }

  /**
   * Reports the activation's outcome and claims again in the same request (docs/api.md, "Complete
   * and claim again"): once the report is durable the server makes the claim, as {@code runnerId},
   * and answers it too, so a turn costs one request. The report stands whatever the claim answers.
   *
   * @param outcome a completion or a failure
   * @param leaseSeconds null for the server's default
   * @return the next claim's answer ({@code none} if the server made none)
   * @throws RotaException.LeaseLost if the lease expired or was superseded (no claim was made)
   * @throws RotaException.LeaseNotHeld if the lease was granted to another runner
   */
  public ClaimResult reportAndClaim(
      String leaseId,
      String runnerId,
      Outcome outcome,
      RunnerMode mode,
      Set<String> capabilities,
      int waitSeconds,
      Integer leaseSeconds) {
    return runner.reportAndClaim(
        leaseId,
        runnerId,
        outcome,
        List.of(),
        List.of(),
        mode,
        capabilities,
        waitSeconds,
        leaseSeconds);
  }

  /**
   * {@link #reportAndClaim(String, String, Outcome, RunnerMode, Set, int, Integer)} with the turn's
   * sends, which go out only with a completion ({@code outcome} a failure sends nothing).
   */
  public ClaimResult reportAndClaim(
      String leaseId,
      String runnerId,
      Outcome outcome,
      List<Send> sends,
      RunnerMode mode,
      Set<String> capabilities,
      int waitSeconds,
      Integer leaseSeconds) {
    return reportAndClaim(
        leaseId,
        runnerId,
        outcome,
        sends,
        List.of(),
        mode,
        capabilities,
        waitSeconds,
        leaseSeconds);
  }

  /**
   * {@link #reportAndClaim(String, String, Outcome, List, RunnerMode, Set, int, Integer)} leaving
   * the calls named in {@code defer} owed (docs/api.md, "Deferred answers"); a failure defers
   * nothing, since it answers no call.
   */
  public ClaimResult reportAndClaim(
      String leaseId,
      String runnerId,
      Outcome outcome,
      List<Send> sends,
      List<String> defer,
      RunnerMode mode,
      Set<String> capabilities,
      int waitSeconds,
      Integer leaseSeconds) {
    boolean completed = outcome instanceof Outcome.Completed;
    return runner.reportAndClaim(
        leaseId,
        runnerId,
        outcome,
        completed ? sends : List.of(),
        completed ? defer : List.of(),
        mode,
        capabilities,
        waitSeconds,
        leaseSeconds);
  }

  /** Closes every open event stream and subscription; later calls throw. */
  @Override
  public void close() {
    calls.close();
    open.closeAll();
  }

  /** Settings of a {@link RotaClient}. */
  public static final class Builder {
    private final URI baseUri;
    private String token;
    private Duration connectTimeout = Duration.ofSeconds(5);
    private Duration readTimeout = Duration.ofSeconds(30);
    private int retries = 4;
    private Duration initialBackoff = Duration.ofMillis(200);
    private Duration maxBackoff = Duration.ofSeconds(5);
    private String tenant;

    private Builder(URI baseUri) {
      this.baseUri = baseUri;
    }

    /** The bearer token; null or empty for none (a node without tokens allows everything). */
    public Builder token(String token) {
      this.token = token;
      return this;
    }

    /** The tenant of every agent call, sent as {@code ?tenant=}; null (default): none. */
    public Builder tenant(String tenant) {
      this.tenant = tenant;
      return this;
    }

    public Builder connectTimeout(Duration timeout) {
      this.connectTimeout = timeout;
      return this;
    }

    /** How long an answer may take (a claim adds its {@code waitSeconds}); default 30 s. */
    public Builder readTimeout(Duration timeout) {
      this.readTimeout = timeout;
      return this;
    }

    /** How many times a retriable failure is retried (default 4; 0 turns retries off). */
    public Builder retries(int retries) {
      this.retries = retries;
      return this;
    }

    /** The first wait between tries and the cap on every wait (default 200 ms, 5 s). */
    public Builder backoff(Duration initial, Duration max) {
      this.initialBackoff = initial;
      this.maxBackoff = max;
      return this;
    }

    public RotaClient build() {
      return new RotaClient(this);
    }
  }
}
