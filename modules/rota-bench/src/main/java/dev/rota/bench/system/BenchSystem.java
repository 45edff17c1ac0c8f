package dev.rota.bench.system;

import dev.rota.core.model.RunnerMode;
import java.util.Map;
import java.util.Set;

/**
 * One system under test, driven through one trial: a fresh database, a population of agents, an
 * optional inbox backlog, runners, and (for trickle) notifications published while runners work.
 *
 * <p>The harness drives every system through the same sequence, so each workload is written once:
 *
 * <ol>
 *   <li>{@link #setUp} with a database created for this trial alone (dropped afterwards);
 *   <li>{@link #seedAgents} then {@link #seedNotifications} — bulk loads, not timed;
 *   <li>{@link #startRunners} — from here on the system reports every claim and completion to the
 *       listener, from whatever threads it likes;
 *   <li>{@link #publish} (trickle only), possibly from several threads at once, and {@link #unread}
 *       polls;
 *   <li>{@link #stopRunners}, then {@link #close} — always called, also after a failure.
 * </ol>
 *
 * <p>A system that cannot run a workload's {@link RunnerMode} leaves it out of {@link
 * #supportedModes()}; the harness then reports that workload as n/a for it instead of calling it.
 * Constructing an instance must acquire nothing (the harness makes one just to ask that); all
 * resources are taken in {@link #setUp} and released in {@link #close}.
 *
 * <h2>Plugging in Rota</h2>
 *
 * <p>{@code RotaSystem} ({@code --systems rota}) starts an in-process Rota node in {@link #setUp}
 * with its store pointed at {@link BenchDatabase#jdbcUrl()} (its migrations run there, as in
 * production) and waits until the node is ready. {@link #seedAgents} registers agents {@link
 * AgentIds#id(int) AgentIds.id(0..n-1)}; {@link #seedNotifications} delivers the backlog through
 * the same path producers use (in bulk, but every notification acknowledged before returning).
 * {@link #startRunners} starts {@link RunnerSpec#runners()} in-cluster runners with the {@code
 * noop} executor sleeping {@link RunnerSpec#activationTime()}, in {@link RunnerSpec#mode()}; the
 * executor calls {@link RunnerListener#onClaim} when it receives an activation (with the tokens
 * read back from the notification payloads, see {@link #publish}) and {@link
 * RunnerListener#onComplete} once the completion is acknowledged. {@link #publish} sends the
 * notification with {@code {"benchToken": token}} as payload and returns on the producer's 202.
 * {@link #unread} reads the unread count from {@code /admin/stats} or the read model. {@link
 * #close} leaves the cluster and terminates the actor system.
 *
 * <p>{@code RotaHttpSystem} ({@code --systems rota-http}) is the same, except that the node runs no
 * in-cluster runners: {@link #startRunners} starts an external runner in a JVM of its own whose
 * slots long-poll {@code POST /v1/claims}, sleep, and {@code POST /v1/leases/{id}/complete}; it
 * reports to the listener exactly as above, through its standard output. Register both in {@link
 * SystemCatalog}.
 */
public interface BenchSystem extends AutoCloseable {

  /** The runner modes this system can serve; workloads needing another are reported n/a. */
  /** The payload field of a published notification that carries its token (Rota's systems). */
  String TOKEN_FIELD = "benchToken";

  Set<RunnerMode> supportedModes();

  /** Prepares the system on a fresh, empty database; schema and processes are created here. */
  void setUp(BenchDatabase database, TrialShape shape) throws Exception;

  /** Registers agents {@code AgentIds.id(0)} to {@code AgentIds.id(count - 1)}. */
  void seedAgents(int count) throws Exception;

  /** Loads an unread backlog in bulk; returns when all of it is durably stored. */
  void seedNotifications(InboxSeed seed) throws Exception;

  /**
   * Starts runners. Every activation is reported: {@link RunnerListener#onClaim} when the runner
   * holds it, {@link RunnerListener#onComplete} when its completion is durable.
   */
  void startRunners(RunnerSpec spec, RunnerListener listener) throws Exception;

  /**
   * Adds one notification for {@code agentId} carrying {@code token}; returns when the system has
   * durably accepted it. The token must come back in the {@link ClaimedActivation} of the
   * activation that carries the notification. Called concurrently from several publisher threads.
   */
  void publish(String agentId, long token) throws Exception;

  /**
   * Adds notifications while runners work, to keep a backlog near its size (backlog's top-ups);
   * returns when they are durably stored, without waiting for anything to show them. The default is
   * {@link #seedNotifications}, for systems whose seeding waits for nothing else.
   */
  default void topUpNotifications(InboxSeed seed) throws Exception {
    seedNotifications(seed);
  }

  /** Notifications not yet completed, as the system's store sees them. */
  long unread() throws Exception;

  /**
   * The producer API's base URI when the system takes notifications over HTTP, so that trickle can
   * publish from a process of its own instead of sharing this JVM's CPU with the system under test.
   */
  default java.util.Optional<java.net.URI> publishEndpoint() {
    return java.util.Optional.empty();
  }

  /**
   * Errors the system recovered from during the trial (database errors, failed jobs); reported next
   * to the figures so that a fast run full of failures cannot pass unnoticed.
   */
  default long errors() {
    return 0;
  }

  /**
   * The system's own view of the trial, e.g. its internal latency meters; the harness reports it in
   * the workload's details (as {@code internals}) next to what it measured from outside. Called
   * just before {@link #close}; empty if the system has no such view.
   */
  default Map<String, Object> internals() {
    return Map.of();
  }

  /**
   * CPU milliseconds used so far by runners that run in a process of their own ({@code rota-http}),
   * for the runners' CPU per activation; NaN for systems whose runners have no process apart.
   */
  default double runnerCpuMillis() {
    return Double.NaN;
  }

  /**
   * CPU milliseconds used so far by a worker process of the system's own that is neither the
   * bench's JVM nor PostgreSQL (graphile-worker's Node process and its descendants), for the
   * worker's CPU per activation; NaN for systems without one or where it cannot be read.
   */
  default double workerCpuMillis() {
    return Double.NaN;
  }

  /** Stops runners; an activation in flight completes (or is abandoned) before this returns. */
  void stopRunners() throws Exception;

  /** Releases everything {@link #setUp} created; safe to call after a partial set-up. */
  @Override
  void close() throws Exception;
}
