package dev.rota.cluster.agent;

import dev.rota.cluster.agent.AgentEntity.AwaitInput;
import dev.rota.cluster.agent.AgentEntity.Command;
import dev.rota.cluster.agent.AgentEntity.ErrorCode;
import dev.rota.cluster.agent.AgentEntity.InputWaitOver;
import dev.rota.cluster.agent.AgentEntity.NewInputs;
import dev.rota.cluster.agent.AgentEntity.Rejected;
import dev.rota.cluster.agent.AgentEntity.Reply;
import dev.rota.cluster.agent.AgentEvents.Event;
import dev.rota.cluster.metrics.RotaMetrics;
import dev.rota.core.model.AgentState;
import dev.rota.core.model.Ids;
import dev.rota.core.model.Lease;
import dev.rota.core.model.NewInputState;
import dev.rota.core.model.Notification;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.javadsl.TimerScheduler;
import org.apache.pekko.persistence.typed.javadsl.ReplyEffect;

/**
 * How the runner of a turn hears of new input: the steered notifications it has not been given yet
 * (on its heartbeat's answer or an {@link AwaitInput}), and that its lease was interrupted. Which
 * steered notifications were given is kept in memory only: after the agent restarts, the runner is
 * given every steered notification of its lease again (it tells them apart by id). Waits are held
 * here, not persisted, and each ends by the agent's own timer; a wait lost with the agent's node
 * ends by the asker's timeout.
 *
 * <p>An agent whose notifications only queue never reaches this class on the notification and claim
 * paths: a lease no notification joined has nothing to give.
 */
final class TurnInput {
  private static final String WAIT_TIMER = "input-wait-";

  private final AgentEffects entity;
  private final LeaseTimer leaseTimer;
  private final TimerScheduler<Command> timers;
  private final RotaMetrics metrics;
  private final TenantCaps caps;

  /** The lease {@link #given} counts for. */
  private String givenLease;

  /** How many of {@link #givenLease}'s steered notifications its runner has been given. */
  private int given;

  /** Waits by number; null until the first. */
  private Map<Long, Waiter> waiters;

  private long nextWaiter;

  private record Waiter(String leaseId, ActorRef<Reply> replyTo) {}

  TurnInput(
      AgentEffects entity,
      LeaseTimer leaseTimer,
      TimerScheduler<Command> timers,
      RotaMetrics metrics,
      TenantCaps caps) {
    this.entity = entity;
    this.leaseTimer = leaseTimer;
    this.timers = timers;
    this.metrics = metrics;
    this.caps = caps;
  }

  /**
   * The steered notifications of the current lease its runner has not been given, which count as
   * given from now on; empty (and no allocation) for a lease none joined.
   */
  List<Notification> ungiven(AgentState state) {
    Lease lease = state.lease();
    if (lease == null || lease.steeredIds().isEmpty()) {
      return List.of();
    }
    if (!lease.leaseId().equals(givenLease)) {
      givenLease = lease.leaseId();
      given = 0;
    }
    List<String> ids = lease.steeredIds();
    if (given >= ids.size()) {
      return List.of();
    }
    List<String> fresh = ids.subList(given, ids.size());
    given = ids.size();
    List<Notification> out = new ArrayList<>(fresh.size());
    for (String id : fresh) {
      for (Notification n : state.inbox()) {
        if (n.notificationId().equals(id)) {
          out.add(n);
          break;
        }
      }
    }
    return out;
  }

  ReplyEffect<Event, AgentState> onAwaitInput(AgentState state, AwaitInput cmd) {
    Lease lease = state.lease();
    if (lease == null || !lease.leaseId().equals(cmd.leaseId())) {
      return entity.effect().reply(cmd.replyTo(), gone(state, cmd.leaseId()));
    }
    if (!lease.runnerId().equals(cmd.runnerId())) {
      return entity
          .effect()
          .reply(
              cmd.replyTo(),
              new Rejected(ErrorCode.LEASE_NOT_HELD, "the lease was granted to another runner"));
    }
    List<Notification> fresh = ungiven(state);
    if (!fresh.isEmpty() || cmd.waitMillis() <= 0) {
      return entity.effect().reply(cmd.replyTo(), new NewInputs(fresh, false));
    }
    if (waiters == null) {
      waiters = new HashMap<>();
    }
    long id = nextWaiter++;
    waiters.put(id, new Waiter(lease.leaseId(), cmd.replyTo()));
    timers.startSingleTimer(
        WAIT_TIMER + id, new InputWaitOver(id), Duration.ofMillis(cmd.waitMillis()));
    return entity.effect().noReply();
  }

  ReplyEffect<Event, AgentState> onWaitOver(AgentState state, InputWaitOver cmd) {
    Waiter waiter = waiters == null ? null : waiters.remove(cmd.waiter());
    if (waiter != null) {
      Lease lease = state.lease();
      boolean current = lease != null && lease.leaseId().equals(waiter.leaseId());
      waiter
          .replyTo()
          .tell(current ? new NewInputs(ungiven(state), false) : gone(state, waiter.leaseId()));
    }
    return entity.effect().noReply();
  }

  /** A notification joined the running lease: its runner's waits hear of it now. */
  void steered(AgentState after) {
    if (waiters == null || waiters.isEmpty()) {
      return;
    }
    String leaseId = after.lease().leaseId();
    List<Notification> fresh = null;
    for (Iterator<Map.Entry<Long, Waiter>> it = waiters.entrySet().iterator(); it.hasNext(); ) {
      Map.Entry<Long, Waiter> e = it.next();
      if (e.getValue().leaseId().equals(leaseId)) {
        if (fresh == null) {
          fresh = ungiven(after);
        }
        e.getValue().replyTo().tell(new NewInputs(fresh, false));
        timers.cancel(WAIT_TIMER + e.getKey());
        it.remove();
      }
    }
  }

  /**
   * New input ended the lease, as a completion would: it needs no expiry any more, its tenant's
   * permit goes back, its duration counts, and its runner's waits hear of it now.
   */
  void interrupted(Lease lease) {
    Instant now = entity.now();
    leaseTimer.stop();
    caps.release(lease.leaseId(), "lease interrupted");
    metrics.activationEnded(Duration.between(lease.grantedAt(), now));
    if (waiters == null || waiters.isEmpty()) {
      return;
    }
    for (Iterator<Map.Entry<Long, Waiter>> it = waiters.entrySet().iterator(); it.hasNext(); ) {
      Map.Entry<Long, Waiter> e = it.next();
      if (e.getValue().leaseId().equals(lease.leaseId())) {
        e.getValue().replyTo().tell(new NewInputs(List.of(), true));
        timers.cancel(WAIT_TIMER + e.getKey());
        it.remove();
      }
    }
  }

  /** The answer about a lease that is not the agent's current one. */
  private static Reply gone(AgentState state, String leaseId) {
    if (NewInputState.wasInterrupted(state, leaseId)) {
      return new NewInputs(List.of(), true);
    }
    return new Rejected(
        ErrorCode.LEASE_LOST, Ids.leaseLabel(leaseId) + " expired or was superseded");
  }

  /** The refusal of a report on a lease new input interrupted. */
  static Rejected interruptedLease(String leaseId) {
    return new Rejected(
        ErrorCode.LEASE_INTERRUPTED, Ids.leaseLabel(leaseId) + " was interrupted by new input");
  }
}
