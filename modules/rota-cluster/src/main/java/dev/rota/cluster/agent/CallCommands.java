package dev.rota.cluster.agent;

import dev.rota.cluster.agent.AgentEntity.CallsDue;
import dev.rota.cluster.agent.AgentEntity.DeliverReply;
import dev.rota.cluster.agent.AgentEntity.Done;
import dev.rota.cluster.agent.AgentEvents.CallResolved;
import dev.rota.cluster.agent.AgentEvents.Event;
import dev.rota.cluster.agent.AgentEvents.ReplyLate;
import dev.rota.core.model.AgentState;
import dev.rota.core.model.CallBook;
import dev.rota.core.model.CallInfo;
import dev.rota.core.model.CallState;
import dev.rota.core.model.HistoryEntry;
import dev.rota.core.model.Ids;
import dev.rota.core.model.Notification;
import dev.rota.core.model.OpenCall;
import dev.rota.core.model.Replies;
import dev.rota.core.tenant.AgentKeys;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import org.apache.pekko.actor.typed.javadsl.TimerScheduler;
import org.apache.pekko.persistence.typed.javadsl.ReplyEffect;

/**
 * An agent's side as a caller: the replies to its calls arrive here ({@link DeliverReply}), and its
 * own timer answers the calls whose deadline passes first ({@code timedOut}). Exactly one reply per
 * call reaches the inbox: a reply for a call no longer open is kept in the history only, and the
 * same reply delivered twice (its sender retried) is recognised and changes nothing.
 */
final class CallCommands {
  private static final String DEADLINE_TIMER = "call-deadline";

  private final AgentEffects entity;
  private final TimerScheduler<AgentEntity.Command> timers;

  CallCommands(AgentEffects entity, TimerScheduler<AgentEntity.Command> timers) {
    this.entity = entity;
    this.timers = timers;
  }

  ReplyEffect<Event, AgentState> onDeliverReply(AgentState state, DeliverReply cmd) {
    Instant now = entity.now();
    OpenCall call = state.calls().openCall(cmd.callId()).orElse(null);
    if (call == null || call.held()) {
      if (call != null || alreadyResolved(state, cmd.callId())) {
        return entity.effect().reply(cmd.replyTo(), new Done(now));
      }
      return entity
          .persist(new ReplyLate(cmd.callId(), cmd.status(), now))
          .thenReply(cmd.replyTo(), s -> new Done(now));
    }
    Notification reply =
        new Notification(Ids.randomId(), Replies.TYPE, cmd.payload(), null, now, 0);
    return entity
        .persist(resolved(state, cmd.callId(), cmd.status(), reply, now))
        .thenReply(cmd.replyTo(), s -> new Done(now));
  }

  /** Every call whose deadline passed is answered {@code timedOut}, in one write. */
  ReplyEffect<Event, AgentState> onCallsDue(AgentState state, CallsDue due) {
    Instant now = entity.now();
    List<OpenCall> overdue = state.calls().overdue(now);
    if (overdue.isEmpty()) {
      schedule(state);
      return entity.effect().noReply();
    }
    List<Event> events = new ArrayList<>();
    AgentState after = state;
    for (OpenCall call : overdue) {
      CallInfo.Party callee =
          new CallInfo.Party(AgentKeys.tenantOf(entity.agentId()), call.targetAgentId());
      Notification reply =
          new Notification(
              Ids.randomId(),
              Replies.TYPE,
              Replies.failed(
                  call.callId(),
                  callee,
                  Replies.TIMED_OUT,
                  "timeout",
                  "no answer within the call's timeout"),
              null,
              now,
              0);
      CallResolved event = resolved(after, call.callId(), Replies.TIMED_OUT, reply, now);
      events.add(event);
      after = CallState.resolved(after, call.callId(), Replies.TIMED_OUT, reply, now);
    }
    return entity.persist(events).thenNoReply();
  }

  /** Whether the deadline timer runs. */
  boolean timing() {
    return timers.isTimerActive(DEADLINE_TIMER);
  }

  /** The agent's timer for its earliest call deadline, if it has open calls. */
  void schedule(AgentState state) {
    var deadline = state.calls().nextDeadline();
    if (deadline.isEmpty()) {
      if (timers.isTimerActive(DEADLINE_TIMER)) {
        timers.cancel(DEADLINE_TIMER);
      }
      return;
    }
    Duration wait = Duration.between(entity.now(), deadline.get());
    timers.startSingleTimer(
        DEADLINE_TIMER, CallsDue.INSTANCE, wait.isNegative() ? Duration.ZERO : wait);
  }

  private static CallResolved resolved(
      AgentState state, String callId, String status, Notification reply, Instant now) {
    CallBook.Resolution resolution = state.calls().resolved(callId, reply);
    return new CallResolved(callId, status, reply, resolution.toInbox().size(), now);
  }

  /**
   * Whether the history says a reply for the call came already (this one delivered again): it
   * answered the call, or was recorded late. A call that timed out has had no reply yet.
   */
  private static boolean alreadyResolved(AgentState state, String callId) {
    for (HistoryEntry entry : state.history()) {
      boolean byReply =
          entry.type().equals("call.answered")
              || entry.type().equals("call.failed")
              || entry.type().equals("call.reply_late");
      if (byReply && callId.equals(entry.details().get("callId"))) {
        return true;
      }
    }
    return false;
  }
}
