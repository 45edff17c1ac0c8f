package dev.rota.cluster.runner;

import dev.rota.cluster.Asks;
import dev.rota.cluster.CborSerializable;
import dev.rota.cluster.agent.AgentEntity;
import dev.rota.cluster.assign.WorkProtocol.Assigned;
import dev.rota.cluster.assign.WorkProtocol.NoWork;
import dev.rota.cluster.assign.WorkProtocol.Paused;
import dev.rota.cluster.assign.WorkProtocol.Refused;
import dev.rota.cluster.assign.WorkProtocol.RequestWork;
import dev.rota.cluster.assign.WorkProtocol.WorkReply;
import dev.rota.cluster.runner.RunnerStatus.Activity;
import dev.rota.core.model.ClaimSpec;
import dev.rota.core.model.Ids;
import dev.rota.core.model.RunnerMode;
import java.time.Duration;
import java.time.Instant;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.Behavior;
import org.apache.pekko.actor.typed.PostStop;
import org.apache.pekko.actor.typed.PreRestart;
import org.apache.pekko.actor.typed.javadsl.ActorContext;
import org.apache.pekko.actor.typed.javadsl.BehaviorBuilder;
import org.apache.pekko.actor.typed.javadsl.Behaviors;
import org.apache.pekko.actor.typed.javadsl.TimerScheduler;

/**
 * One in-cluster worker slot. It loops: ask the node's dispatcher for work (long poll) → run the
 * activation through its {@link Executor} while heartbeating the lease every third of its length →
 * complete or fail it at the agent → cool down → ask again. The agent's answer to the completion is
 * not waited for before the next request: it arrives while the runner asks for (or runs) its next
 * activation, so the two durable writes of consecutive turns overlap ({@link Reports}).
 *
 * <p>A runner never runs an activation whose lease it has lost: when a heartbeat is refused, or
 * when the lease's expiry passes without a successful heartbeat (heartbeats unanswered: the agent's
 * node is gone or unreachable), it cancels the executor and drops the outcome (the agent counts, or
 * has counted, the lease as expired). Told to {@link Drain}, it takes no new work, finishes what it
 * holds (or fails it with {@code retry} once the deadline passes) and stops. A lease granted to it
 * after it was told to drain is handed back with {@code snooze 0}, which uses up no attempt.
 */
public final class Runner {

  /** Who a runner is: its id is unique in the cluster ({@code <host:port>/<pool>-<n>}). */
  public record Identity(
      String runnerId, String node, String pool, RunnerMode mode, Set<String> capabilities) {
    public Identity {
      capabilities = Set.copyOf(capabilities);
    }
  }

  // ---- protocol ----

  public sealed interface Command {}

  public record GetStatus(ActorRef<RunnerStatus> replyTo) implements Command, CborSerializable {}

  /**
   * Stop taking work and stop once nothing is in flight. {@link Drained} is sent as soon as no
   * activation is in flight (a pending request for work may still be answered; a lease it brings is
   * handed back).
   *
   * @param deadline after this the current activation is cancelled and failed with {@code retry};
   *     null lets it finish however long it takes (the executor's own timeout bounds it)
   * @param replyTo may be null
   */
  public record Drain(Duration deadline, ActorRef<Drained> replyTo) implements Command {}

  public record Drained(String runnerId) {}

  private record WorkAnswered(WorkReply reply, Throwable failure) implements Command {}

  private enum Resume implements Command {
    INSTANCE
  }

  /** Messages about one activation; they are stale once the runner has moved on. */
  sealed interface ForLease extends Command {
    String leaseId();
  }

  private record Executed(String leaseId, Outcome outcome, Throwable failure) implements ForLease {}

  record HeartbeatDue(String leaseId) implements ForLease {}

  /**
   * A heartbeat's answer; {@code sentNanos} is when it was sent, on this node's monotonic clock.
   */
  private record HeartbeatAnswered(
      String leaseId, long sentNanos, AgentEntity.Reply reply, Throwable failure)
      implements ForLease {}

  private record DrainDeadline(String leaseId) implements ForLease {}

  /** The lease's known expiry passed without a successful heartbeat moving it. */
  record LeaseExpired(String leaseId) implements ForLease {}

  private record Reported(String leaseId, AgentEntity.Reply reply, Throwable failure)
      implements ForLease {}

  private static final String DEADLINE = "drain-deadline";
  private static final String RESUME = "resume";

  /**
   * @param statusListener told every change of this runner's status; may be null
   */
  public static Behavior<Command> create(
      Identity identity,
      RunnerSettings settings,
      Executor executor,
      ActorRef<RequestWork> dispatcher,
      ActorRef<RunnerStatus> statusListener) {
    return Behaviors.setup(
        ctx ->
            Behaviors.withTimers(
                timers ->
                    new Runner(
                            identity, settings, executor, dispatcher, statusListener, ctx, timers)
                        .requestWork()));
  }

  private final Identity identity;
  private final RunnerSettings settings;
  private final Executor executor;
  private final ActorRef<RequestWork> dispatcher;
  private final ActorRef<RunnerStatus> statusListener;
  private final ActorContext<Command> ctx;
  private final TimerScheduler<Command> timers;
  private final LeaseClient<Command> leases;
  private final LeaseTimers leaseTimers;
  private final Reports reports;
  private final Draining draining = new Draining();

  private Activity activity = Activity.REQUESTING;
  private Instant lastSeenAt = Instant.now();
  private Activation current;
  private CompletableFuture<Outcome> running;
  private boolean awaitingWork;

  private Runner(
      Identity identity,
      RunnerSettings settings,
      Executor executor,
      ActorRef<RequestWork> dispatcher,
      ActorRef<RunnerStatus> statusListener,
      ActorContext<Command> ctx,
      TimerScheduler<Command> timers) {
    this.identity = identity;
    this.settings = settings;
    this.executor = executor;
    this.dispatcher = dispatcher;
    this.statusListener = statusListener;
    this.ctx = ctx;
    this.timers = timers;
    this.leases = new LeaseClient<>(ctx, identity.runnerId(), settings.askTimeout());
    this.leaseTimers = new LeaseTimers(timers, settings);
    this.reports =
        new Reports(identity.runnerId(), settings.reportAttempts(), executor, ctx.getLog());
  }

  // ---- asking for work ----

  private Behavior<Command> requestWork() {
    lastSeenAt = Instant.now();
    awaitingWork = true;
    changed(Activity.REQUESTING);
    Asks.ask(
        ctx,
        WorkReply.class,
        dispatcher,
        settings.pollWait().plus(settings.requestGrace()),
        replyTo ->
            new RequestWork(
                new ClaimSpec(
                    identity.runnerId(),
                    identity.mode(),
                    identity.capabilities(),
                    settings.pollWait(),
                    settings.leaseSeconds()),
                identity.node(),
                replyTo),
        WorkAnswered::new);
    return common()
        .onMessage(WorkAnswered.class, this::onWorkAnswered)
        .onMessage(
            Drain.class,
            drain -> {
              // Nothing executing; stay to hand back what the pending request brings, and until
              // the last report is answered.
              beginDraining(drain);
              if (reports.isEmpty()) {
                replyDrained();
              }
              return Behaviors.same();
            })
        .onMessage(Command.class, stale -> Behaviors.same())
        .build();
  }

  private Behavior<Command> onWorkAnswered(WorkAnswered answer) {
    awaitingWork = false;
    if (answer.reply() instanceof Assigned assigned) {
      if (draining.active()) {
        handBack(assigned.granted());
        return finishReports();
      }
      return execute(Activation.of(assigned.granted()));
    }
    if (draining.active()) {
      return finishReports();
    }
    if (answer.reply() instanceof NoWork) {
      // The dispatcher already waited up to pollWait: ask again at once.
      return requestWork();
    }
    if (answer.reply() instanceof Paused) {
      return pause(settings.pausedBackoff(), Activity.BACKING_OFF);
    }
    if (answer.reply() instanceof Refused refused) {
      // Degraded or drained by an admin: ask again when told, in case it was restored meanwhile.
      return pause(Duration.ofSeconds(refused.retryAfterSeconds()), Activity.BACKING_OFF);
    }
    ctx.getLog()
        .warn(
            "Runner {}: no answer from the dispatcher ({}), asking again in {}",
            identity.runnerId(),
            answer.failure() == null ? "null reply" : answer.failure().toString(),
            settings.pausedBackoff());
    return pause(settings.pausedBackoff(), Activity.BACKING_OFF);
  }

  private Behavior<Command> pause(Duration delay, Activity why) {
    if (delay.isZero() || delay.isNegative()) {
      return requestWork();
    }
    changed(why);
    timers.startSingleTimer(RESUME, Resume.INSTANCE, delay);
    return common()
        .onMessageEquals(Resume.INSTANCE, this::requestWork)
        .onMessage(
            Drain.class,
            drain -> {
              beginDraining(drain);
              return finishReports();
            })
        .onMessage(Command.class, stale -> Behaviors.same())
        .build();
  }

  /** A lease this runner will not run goes back at once, without using up an attempt. */
  private void handBack(AgentEntity.Granted granted) {
    String leaseId = granted.lease().leaseId();
    var log = ctx.getLog();
    String label = Ids.leaseLabel(leaseId);
    log.info("Runner {} is stopping: handing back {}", identity.runnerId(), label);
    leases
        .handBack(leaseId, "runner stopped before it started")
        .whenComplete(
            (reply, failure) -> {
              if (failure != null) {
                log.warn("{} not handed back ({}); it will expire", label, failure);
              }
            });
  }

  // ---- executing ----

  private Behavior<Command> execute(Activation activation) {
    current = activation;
    lastSeenAt = Instant.now();
    String leaseId = activation.leaseId();
    try {
      running = executor.execute(activation).toCompletableFuture();
    } catch (RuntimeException e) {
      running = CompletableFuture.failedFuture(e);
    }
    ctx.pipeToSelf(running, (outcome, failure) -> new Executed(leaseId, outcome, failure));
    leaseTimers.start(activation);
    changed(Activity.EXECUTING);
    ctx.getLog()
        .debug(
            "Runner {} runs agent {} ({} notifications, fencing token {})",
            identity.runnerId(),
            activation.agentId(),
            activation.granted().notifications().size(),
            activation.lease().fencingToken());
    return executing();
  }

  private Behavior<Command> executing() {
    return common()
        .onMessage(Executed.class, this::isCurrent, this::onExecuted)
        .onMessage(HeartbeatDue.class, this::isCurrent, this::onHeartbeatDue)
        .onMessage(HeartbeatAnswered.class, this::isCurrent, this::onHeartbeatAnswered)
        .onMessage(
            Drain.class,
            drain -> {
              beginDraining(drain);
              if (draining.deadline() != null && !timers.isTimerActive(DEADLINE)) {
                timers.startSingleTimer(
                    DEADLINE, new DrainDeadline(current.leaseId()), draining.deadline());
              }
              return Behaviors.same();
            })
        .onMessage(DrainDeadline.class, this::isCurrent, this::onDrainDeadline)
        .onMessage(
            LeaseExpired.class,
            this::isCurrent,
            expired -> abandon("its lease expired without a successful heartbeat"))
        .onMessage(Command.class, stale -> Behaviors.same())
        .build();
  }

  private Behavior<Command> onExecuted(Executed executed) {
    leaseTimers.stop();
    timers.cancel(DEADLINE);
    Outcome outcome =
        executed.failure() == null
            ? executed.outcome()
            : Outcome.retry("executor failed: " + executed.failure());
    if (outcome == null) {
      outcome = Outcome.retry("executor returned no outcome");
    }
    return report(outcome, 1);
  }

  private Behavior<Command> onHeartbeatDue(HeartbeatDue due) {
    long sentNanos = System.nanoTime();
    leases.heartbeat(
        due.leaseId(),
        (reply, failure) -> new HeartbeatAnswered(due.leaseId(), sentNanos, reply, failure));
    return Behaviors.same();
  }

  private Behavior<Command> onHeartbeatAnswered(HeartbeatAnswered answered) {
    if (answered.reply() instanceof AgentEntity.Extended extended) {
      lastSeenAt = Instant.now();
      leaseTimers.renewed(current, answered.sentNanos());
      return Behaviors.same();
    }
    if (answered.reply() instanceof AgentEntity.Rejected rejected) {
      return abandon("its lease was lost (" + rejected.message() + ")");
    }
    // An unanswered heartbeat is not a lost lease: the next one may get through in time.
    ctx.getLog()
        .warn(
            "Runner {}: heartbeat for {} unanswered: {}",
            identity.runnerId(),
            Ids.leaseLabel(answered.leaseId()),
            answered.failure() == null ? answered.reply() : answered.failure().toString());
    return Behaviors.same();
  }

  private Behavior<Command> onDrainDeadline(DrainDeadline deadline) {
    leaseTimers.stop();
    running.cancel(true);
    ctx.getLog()
        .warn(
            "Runner {}: agent {} did not finish within {} of the node leaving; failing it with retry",
            identity.runnerId(),
            current.agentId(),
            draining.deadline());
    return report(Outcome.retry("runner stopped: its node left before the activation finished"), 1);
  }

  private Behavior<Command> abandon(String why) {
    leaseTimers.stop();
    timers.cancel(DEADLINE);
    running.cancel(true);
    reports.countAbandoned();
    ctx.getLog()
        .warn(
            "Runner {} abandons agent {} (fencing token {}): {}",
            identity.runnerId(),
            current.agentId(),
            current.lease().fencingToken(),
            why);
    return afterActivation();
  }

  // ---- reporting ----

  /**
   * Sends the outcome and moves on without waiting for the agent's answer: the runner asks for its
   * next activation while the agent persists this one's end, so a runner's turn costs one durable
   * write on its path instead of two. The answer is handled whenever it comes ({@link
   * #onReported}); a runner told to drain stops only once every report is answered.
   */
  private Behavior<Command> report(Outcome outcome, int attempt) {
    sendReport(new Reports.Pending(current, outcome, attempt));
    return afterActivation();
  }

  private void sendReport(Reports.Pending report) {
    String leaseId = report.activation().leaseId();
    reports.sent(report);
    leases.report(
        leaseId, report.outcome(), (reply, failure) -> new Reported(leaseId, reply, failure));
  }

  private Behavior<Command> onReported(Reported reported) {
    Reports.Pending report = reports.answered(reported.leaseId());
    if (report == null) {
      return Behaviors.same();
    }
    Reports.Pending again = reports.settle(report, reported.reply(), reported.failure());
    if (again != null) {
      sendReport(again);
      return Behaviors.same();
    }
    changed(activity);
    if (draining.active() && current == null && reports.isEmpty()) {
      replyDrained();
      // A runner still waiting for work stays until it can hand back what that brings.
      return awaitingWork ? Behaviors.same() : Behaviors.stopped();
    }
    return Behaviors.same();
  }

  private Behavior<Command> afterActivation() {
    current = null;
    running = null;
    if (draining.active()) {
      return finishReports();
    }
    return pause(settings.coolDown(), Activity.COOLING_DOWN);
  }

  /** Draining with nothing in flight: stops once the last report is answered. */
  private Behavior<Command> finishReports() {
    if (reports.isEmpty()) {
      replyDrained();
      changed(activity);
      return Behaviors.stopped();
    }
    changed(Activity.REPORTING);
    return common()
        .onMessage(
            Drain.class,
            drain -> {
              beginDraining(drain);
              return Behaviors.same();
            })
        .onMessage(Command.class, stale -> Behaviors.same())
        .build();
  }

  // ---- common ----

  private BehaviorBuilder<Command> common() {
    return Behaviors.receive(Command.class)
        .onMessage(
            GetStatus.class,
            get -> {
              get.replyTo().tell(status());
              return Behaviors.same();
            })
        .onMessage(Reported.class, this::onReported)
        .onSignal(PostStop.class, stop -> cancelRunning())
        .onSignal(PreRestart.class, restart -> cancelRunning());
  }

  /** Never leave a process or request running for an activation no one will report. */
  private Behavior<Command> cancelRunning() {
    if (running != null) {
      running.cancel(true);
    }
    return Behaviors.same();
  }

  private void beginDraining(Drain drain) {
    draining.begin(drain);
    changed(activity);
  }

  private void replyDrained() {
    draining.replyDrained(identity.runnerId());
  }

  private boolean isCurrent(ForLease m) {
    return current != null && current.leaseId().equals(m.leaseId());
  }

  private void changed(Activity now) {
    activity = now;
    if (statusListener != null) {
      statusListener.tell(status());
    }
  }

  private RunnerStatus status() {
    return new RunnerStatus(
        identity.runnerId(),
        identity.node(),
        identity.pool(),
        identity.mode(),
        identity.capabilities(),
        activity,
        draining.active(),
        current == null ? null : current.leaseId(),
        current == null ? null : current.agentId(),
        lastSeenAt,
        reports.completed(),
        reports.failed(),
        reports.abandoned());
  }
}
