package dev.rota.cluster.agent;

import dev.rota.cluster.agent.AgentEntity.AgentDetails;
import dev.rota.cluster.agent.AgentEntity.Deregister;
import dev.rota.cluster.agent.AgentEntity.Discard;
import dev.rota.cluster.agent.AgentEntity.Done;
import dev.rota.cluster.agent.AgentEntity.ErrorCode;
import dev.rota.cluster.agent.AgentEntity.Get;
import dev.rota.cluster.agent.AgentEntity.Redrive;
import dev.rota.cluster.agent.AgentEntity.Register;
import dev.rota.cluster.agent.AgentEntity.Rejected;
import dev.rota.cluster.agent.AgentEntity.SetPaused;
import dev.rota.cluster.agent.AgentEvents.AgentDeregistered;
import dev.rota.cluster.agent.AgentEvents.AgentPaused;
import dev.rota.cluster.agent.AgentEvents.AgentRegistered;
import dev.rota.cluster.agent.AgentEvents.AgentResumed;
import dev.rota.cluster.agent.AgentEvents.AgentUpdated;
import dev.rota.cluster.agent.AgentEvents.DeadLetterDiscarded;
import dev.rota.cluster.agent.AgentEvents.DeadLetterRedriven;
import dev.rota.cluster.agent.AgentEvents.Event;
import dev.rota.core.model.AgentConfig;
import dev.rota.core.model.AgentConfigPatch;
import dev.rota.core.model.AgentState;
import dev.rota.core.model.Schedule;
import dev.rota.core.model.TextRules;
import dev.rota.core.model.TextRules.Kind;
import dev.rota.core.model.TextRules.Violation;
import java.time.Instant;
import java.util.Optional;
import org.apache.pekko.persistence.typed.javadsl.ReplyEffect;

/**
 * An agent's own life and its operator's commands: registering (with its config and schedules),
 * reading, pausing, deregistering, and redriving or discarding its dead letters.
 */
final class AdminCommands {
  private final AgentEffects entity;

  AdminCommands(AgentEffects entity) {
    this.entity = entity;
  }

  ReplyEffect<Event, AgentState> onRegister(AgentState state, Register cmd) {
    Optional<Violation> bad = unstorable(cmd.patch());
    if (bad.isPresent()) {
      return entity.effect().reply(cmd.replyTo(), AgentEffects.invalid(bad.get()));
    }
    Instant now = entity.now();
    if (!state.registered()) {
      AgentConfig config = cmd.patch().applyTo(AgentConfig.defaults(entity.agentId()));
      Instant nextFireAt = state.registered(config, now).nextFireAt();
      return entity
          .persist(new AgentRegistered(config, now, nextFireAt))
          .thenReply(cmd.replyTo(), s -> new AgentDetails(s, true, now));
    }
    AgentConfig config = cmd.patch().applyTo(state.config());
    if (config.equals(state.config())) {
      return entity.effect().reply(cmd.replyTo(), new AgentDetails(state, false, now));
    }
    Instant nextFireAt = state.configured(config, now).nextFireAt();
    return entity
        .persist(new AgentUpdated(config, now, nextFireAt))
        .thenReply(cmd.replyTo(), s -> new AgentDetails(s, false, now));
  }

  ReplyEffect<Event, AgentState> onGet(AgentState state, Get cmd) {
    if (!state.registered()) {
      return entity.effect().reply(cmd.replyTo(), entity.notFound());
    }
    return entity.effect().reply(cmd.replyTo(), new AgentDetails(state, false, entity.now()));
  }

  ReplyEffect<Event, AgentState> onDeregister(AgentState state, Deregister cmd) {
    if (state.lease() != null) {
      return entity
          .effect()
          .reply(
              cmd.replyTo(),
              new Rejected(ErrorCode.CONFLICT, "agent " + entity.agentId() + " holds a lease"));
    }
    Instant now = entity.now();
    // The calls waiting in the inbox, and those it deferred, are answered failed: their callers
    // would wait in vain.
    var replies =
        new java.util.ArrayList<>(
            dev.rota.core.calls.TurnSends.abandoned(
                entity.agentId(), state.inbox(), "deleted", now));
    replies.addAll(
        dev.rota.core.calls.TurnSends.abandonedOwed(
            entity.agentId(), state.calls().owed(), "deleted", now));
    return entity
        .persist(new AgentDeregistered(now, replies))
        .thenReply(cmd.replyTo(), s -> new Done(now));
  }

  ReplyEffect<Event, AgentState> onSetPaused(AgentState state, SetPaused cmd) {
    Instant now = entity.now();
    if (state.paused() == cmd.paused()) {
      return entity.effect().reply(cmd.replyTo(), new AgentDetails(state, false, now));
    }
    Event event = cmd.paused() ? new AgentPaused(now) : new AgentResumed(now);
    return entity.persist(event).thenReply(cmd.replyTo(), s -> new AgentDetails(s, false, now));
  }

  ReplyEffect<Event, AgentState> onSnapshot(AgentState state, AgentEntity.Snapshot cmd) {
    Instant now = entity.now();
    return entity
        .persist(new AgentEvents.SnapshotTaken(now))
        .thenReply(cmd.replyTo(), s -> new AgentEntity.Done(now));
  }

  ReplyEffect<Event, AgentState> onRedrive(AgentState state, Redrive cmd) {
    if (state.deadLetter(cmd.deadLetterId()).isEmpty()) {
      return entity.effect().reply(cmd.replyTo(), noDeadLetter(cmd.deadLetterId()));
    }
    Instant now = entity.now();
    return entity
        .persist(new DeadLetterRedriven(cmd.deadLetterId(), now))
        .thenReply(cmd.replyTo(), s -> new Done(now));
  }

  ReplyEffect<Event, AgentState> onDiscard(AgentState state, Discard cmd) {
    if (state.deadLetter(cmd.deadLetterId()).isEmpty()) {
      return entity.effect().reply(cmd.replyTo(), noDeadLetter(cmd.deadLetterId()));
    }
    Instant now = entity.now();
    return entity
        .persist(new DeadLetterDiscarded(cmd.deadLetterId(), now))
        .thenReply(cmd.replyTo(), s -> new Done(now));
  }

  private static Rejected noDeadLetter(String deadLetterId) {
    return new Rejected(ErrorCode.NOT_FOUND, "no dead letter " + deadLetterId);
  }

  /** The first string of a registration the journal or the read model could not hold. */
  private static Optional<Violation> unstorable(AgentConfigPatch patch) {
    Optional<Violation> bad =
        TextRules.check("name", patch.name(), Kind.NAME)
            .or(() -> TextRules.firstViolation(patch.metadata(), "metadata", Kind.TEXT))
            .or(() -> Schedule.firstViolation(patch.schedules()));
    if (bad.isEmpty() && patch.capabilities() != null) {
      for (String capability : patch.capabilities()) {
        bad = TextRules.check("capabilities", capability, Kind.NAME);
        if (bad.isPresent()) {
          break;
        }
      }
    }
    return bad;
  }
}
