package dev.rota.cluster.assign;

import dev.rota.cluster.agent.AgentEntity;
import dev.rota.cluster.assign.WorkProtocol.Assigned;
import dev.rota.cluster.assign.WorkProtocol.NoWork;
import dev.rota.cluster.assign.WorkProtocol.RequestWork;
import dev.rota.cluster.assign.WorkProtocol.WorkReply;
import dev.rota.cluster.metrics.RotaMetrics;
import dev.rota.core.model.ClaimSpec;
import dev.rota.core.model.Ids;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.pekko.actor.Cancellable;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.ActorSystem;
import org.apache.pekko.actor.typed.javadsl.AskPattern;
import org.apache.pekko.cluster.sharding.typed.javadsl.ClusterSharding;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One claim of a runner outside the cluster, asked of this node's {@link Dispatcher} on its behalf
 * (the HTTP claim route), from the ask until its answer reached the runner or its lease went back.
 * No lease is granted to nobody: a grant that comes after the claim was answered, or after the
 * runner's connection ended, is handed back at once ({@link AgentEntity.Release}), which frees the
 * agent and uses no attempt.
 *
 * <p>The dispatcher decides a claim's answer: a lease, "none" when its wait ran out, paused or
 * refused. The claim itself answers only when the dispatcher has not within the wait plus {@link
 * ClaimSettings#answerMargin()}: a long poll with "none" (the runner asks again), a claim without a
 * wait with {@link Unanswered} (the route's 503).
 *
 * <pre>
 *               a lease                       its connection takes it
 *   Waiting ────────────────────▶ Offered ─────────────────────────────▶ Taken
 *     │  │                           │
 *     │  │ its connection ends       │ its connection ends first: the lease goes back
 *     │  └────────────────────▶ Gone ◀┘
 *     │ none, paused, refused, or no answer in time
 *     └───────────────────────▶ Answered
 *
 *   A claim without a wait goes from Waiting to Taken with its lease (one response).
 *   A lease that comes to a claim already Answered or Gone goes back at once.
 * </pre>
 */
public final class ExternalClaim {
  private static final Logger log = LoggerFactory.getLogger(ExternalClaim.class);

  /** Where a claim is in its life. It only moves forward; each lease is taken or handed back. */
  public sealed interface State {}

  /** Asked; the dispatcher has not answered. */
  public record Waiting() implements State {}

  /** A lease is granted and on its way to the runner, not taken yet. */
  public record Offered(AgentEntity.Granted granted) implements State {}

  /** The runner has its assignment. */
  public record Taken() implements State {}

  /** Answered without a lease; a lease that comes later goes back. */
  public record Answered() implements State {}

  /** The runner's connection ended before it took a lease; a lease, now or later, goes back. */
  public record Gone() implements State {}

  /** A claim without a wait that the dispatcher did not answer {@code within} its time. */
  public static final class Unanswered extends RuntimeException {
    private final Duration within;

    Unanswered(Duration within) {
      super("no answer within " + within, null, false, false);
      this.within = within;
    }

    public Duration within() {
      return within;
    }
  }

  private static final State WAITING = new Waiting();
  private static final State TAKEN = new Taken();
  private static final State ANSWERED = new Answered();
  private static final State GONE = new Gone();

  private final ActorSystem<?> system;
  private final ClaimSettings settings;
  private final boolean longPoll;
  private final AtomicReference<State> state = new AtomicReference<>(WAITING);
  private final CompletableFuture<WorkReply> answer = new CompletableFuture<>();
  private final CompletionStage<WorkReply> replied;

  private ExternalClaim(
      ActorSystem<?> system,
      ActorRef<Dispatcher.Command> dispatcher,
      ClaimSettings settings,
      ClaimSpec spec) {
    this.system = system;
    this.settings = settings;
    this.longPoll = spec.longPoll();
    Duration answerWithin = answerWithin(spec.maxWait(), settings);
    // The ask outlives the claim's own time, so that a late lease still comes here to go back.
    this.replied =
        AskPattern.ask(
            dispatcher,
            (ActorRef<WorkReply> replyTo) -> new RequestWork(spec, null, replyTo),
            answerWithin.plus(settings.lateGrantWait()),
            system.scheduler());
    Cancellable deadline =
        system
            .scheduler()
            .scheduleOnce(answerWithin, () -> outOfTime(answerWithin), system.executionContext());
    replied.whenComplete(
        (reply, failure) -> {
          deadline.cancel();
          replied(reply, failure);
        });
  }

  /** Asks the dispatcher for {@code spec} on behalf of a runner outside the cluster. */
  public static ExternalClaim ask(
      ActorSystem<?> system,
      ActorRef<Dispatcher.Command> dispatcher,
      ClaimSettings settings,
      ClaimSpec spec) {
    return new ExternalClaim(system, dispatcher, settings, spec);
  }

  /** The longest a claim waiting {@code wait} takes to be answered. */
  public static Duration answerWithin(Duration wait, ClaimSettings settings) {
    return wait.plus(settings.answerMargin());
  }

  /**
   * The claim's answer: the dispatcher's, or one the claim gives when the dispatcher has not
   * answered in time. A long poll's answer carrying a lease still has to be {@link #take taken}.
   */
  public CompletionStage<WorkReply> answer() {
    return answer;
  }

  /** Completes when the dispatcher answered, or its ask failed. */
  public CompletionStage<WorkReply> replied() {
    return replied;
  }

  public State state() {
    return state.get();
  }

  /** The runner's connection takes the offered lease; false if it was handed back. */
  public boolean take() {
    State now = state.get();
    return now instanceof Offered && state.compareAndSet(now, TAKEN);
  }

  /** The runner's connection ended (answer sent, or closed): a lease not taken goes back. */
  public void ended() {
    State was = state.getAndUpdate(s -> s instanceof Waiting || s instanceof Offered ? GONE : s);
    if (was instanceof Offered offered) {
      handBack(offered.granted(), "its connection closed before the assignment was taken", "gone");
    }
  }

  private void replied(WorkReply reply, Throwable failure) {
    if (reply instanceof Assigned assigned) {
      granted(assigned);
    } else if (state.compareAndSet(WAITING, ANSWERED)) {
      if (failure == null) {
        answer.complete(reply);
      } else if (longPoll) {
        answer.complete(new NoWork());
      } else {
        answer.completeExceptionally(failure);
      }
    }
  }

  private void granted(Assigned assigned) {
    AgentEntity.Granted granted = assigned.granted();
    // A claim without a wait answers in one response: its runner has the lease once it is sent.
    State next = longPoll ? new Offered(granted) : TAKEN;
    if (state.compareAndSet(WAITING, next)) {
      answer.complete(assigned);
    } else if (state.get() instanceof Gone) {
      handBack(granted, "its connection closed", "gone");
    } else {
      handBack(
          granted, longPoll ? "claim answered" : "claim answered before the grant arrived", "late");
    }
  }

  private void outOfTime(Duration answerWithin) {
    if (state.compareAndSet(WAITING, ANSWERED)) {
      if (longPoll) {
        answer.complete(new NoWork());
      } else {
        answer.completeExceptionally(new Unanswered(answerWithin));
      }
    }
  }

  /** Gives the lease back; one that cannot be stays until it expires, and the rescuer counts it. */
  private void handBack(AgentEntity.Granted granted, String why, String reason) {
    String leaseId = granted.lease().leaseId();
    RotaMetrics metrics = RotaMetrics.get(system);
    ClusterSharding.get(system)
        .entityRefFor(AgentEntity.ENTITY_TYPE_KEY, ActivationJson.agentIdOf(granted.lease()))
        .<AgentEntity.Reply>ask(
            replyTo -> AgentEntity.Release.of(granted, "runner never took it: " + why, replyTo),
            settings.answerMargin())
        .whenComplete(
            (reply, failure) -> {
              if (reply instanceof AgentEntity.Done) {
                metrics.leaseHandedBack(reason);
                log.info("Handed back {}: {}", Ids.leaseLabel(leaseId), why);
              } else {
                metrics.leaseHandBackFailed();
                log.warn(
                    "Could not hand back {} ({}): {}",
                    Ids.leaseLabel(leaseId),
                    why,
                    failure != null ? failure.toString() : String.valueOf(reply));
              }
            });
  }
}
