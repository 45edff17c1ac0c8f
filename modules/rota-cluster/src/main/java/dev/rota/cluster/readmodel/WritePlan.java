package dev.rota.cluster.readmodel;

import dev.rota.cluster.agent.AgentEvents;
import dev.rota.cluster.agent.AgentEvents.ActivationCompleted;
import dev.rota.cluster.agent.AgentEvents.ActivationEnded;
import dev.rota.cluster.agent.AgentEvents.ActivationFailed;
import dev.rota.cluster.agent.AgentEvents.AgentDeregistered;
import dev.rota.cluster.agent.AgentEvents.AgentPaused;
import dev.rota.cluster.agent.AgentEvents.AgentRegistered;
import dev.rota.cluster.agent.AgentEvents.AgentResumed;
import dev.rota.cluster.agent.AgentEvents.AgentUpdated;
import dev.rota.cluster.agent.AgentEvents.CallResolved;
import dev.rota.cluster.agent.AgentEvents.DeadLetterDiscarded;
import dev.rota.cluster.agent.AgentEvents.DeadLetterRedriven;
import dev.rota.cluster.agent.AgentEvents.Event;
import dev.rota.cluster.agent.AgentEvents.LeaseExpired;
import dev.rota.cluster.agent.AgentEvents.LeaseGranted;
import dev.rota.cluster.agent.AgentEvents.LeaseInterrupted;
import dev.rota.cluster.agent.AgentEvents.LeaseRenewed;
import dev.rota.cluster.agent.AgentEvents.NotificationReceived;
import dev.rota.cluster.agent.AgentEvents.NotificationRejected;
import dev.rota.cluster.agent.AgentEvents.NotificationSteered;
import dev.rota.cluster.agent.AgentEvents.ReplyLate;
import dev.rota.cluster.agent.AgentEvents.SendDelivered;
import dev.rota.cluster.agent.AgentEvents.SendUndeliverable;
import dev.rota.cluster.readmodel.AgentScheduleWriter.Item;
import dev.rota.cluster.readmodel.ScheduleWrite.Binder;
import dev.rota.cluster.readmodel.ScheduleWrite.Deregistration;
import dev.rota.cluster.readmodel.ScheduleWrite.InsertIfNew;
import dev.rota.cluster.readmodel.ScheduleWrite.Registration;
import dev.rota.cluster.readmodel.ScheduleWrite.Update;
import dev.rota.core.model.DeadLetter;
import dev.rota.core.model.FailureAction;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

/**
 * The statements one agent's events of a group become, folded where the result is the same: a run
 * of notifications becomes one update ({@code unread = unread + k}); a run of notifications, grants
 * and renewals that an activation's end follows is dropped into that end's update, which sets every
 * column they touch (the lease columns, and unread and oldest unread as absolute values) — their
 * counts still count, exactly when the end applies. A folded update is guarded by the sequence
 * number of the first event it folds, so it applies exactly when that event alone would have.
 */
final class WritePlan {
  private static final String CONFIGURED =
      "name = ?, capabilities = ?, priority = ?, min_activation_interval_seconds = ?,"
          + " config = ?, next_fire_at = ?";
  private static final String NOTIFIED =
      "unread = unread + ?, oldest_unread_at = " + ScheduleColumns.earliest();
  private static final String LEASED =
      "lease_id = ?, lease_runner_id = ?, lease_kind = ?, lease_expires_at = ?,"
          + " lease_granted_at = ?";
  private static final String RENEWED = "lease_expires_at = ?";
  private static final String ENDED =
      "lease_id = null, lease_runner_id = null, lease_kind = null, lease_expires_at = null,"
          + " lease_granted_at = null, unread = ?, oldest_unread_at = ?, next_fire_at = ?,"
          + " dead_letters = dead_letters + ?, outbox = outbox + ?";
  private static final String COMPLETED =
      ENDED + ", last_activated_at = ?, activation_count = activation_count + 1";
  private static final String SNOOZED = ENDED + ", snoozed_until = ?";
  private static final String PAUSED = "paused = ?";

  /** For events that change no column: only the row's sequence number moves on. */
  private static final String UNCHANGED = "unread = unread";

  private static final String ONE_DEAD_LETTER_LESS =
      "dead_letters = case when dead_letters > 0 then dead_letters - 1 else 0 end";
  private static final String REDRIVEN =
      ONE_DEAD_LETTER_LESS
          + ", unread = unread + 1, oldest_unread_at = "
          + ScheduleColumns.earliest();

  /** An outbox item delivered or given up. */
  private static final String ONE_OWED_LESS =
      "outbox = case when outbox > 0 then outbox - 1 else 0 end";

  private final AgentScheduleWriter writer;

  /** Whether registrations insert first (PostgreSQL); see {@link AgentScheduleWriter}. */
  private final boolean insertFirst;

  WritePlan(AgentScheduleWriter writer, boolean insertFirst) {
    this.writer = writer;
    this.insertFirst = insertFirst;
  }

  /** The writes of one agent's events in this group, in their order. */
  List<ScheduleWrite> of(List<Item> items) {
    List<ScheduleWrite> writes = new ArrayList<>();
    int i = 0;
    while (i < items.size()) {
      int end = i;
      while (end < items.size() && foldableIntoEnd(items.get(end).event())) {
        end++;
      }
      if (end > i && end < items.size() && items.get(end).event() instanceof ActivationEnded) {
        writes.add(ended(items.get(end), items.subList(i, end)));
        i = end + 1;
        continue;
      }
      int run = i;
      while (run < items.size() && items.get(run).event() instanceof NotificationReceived) {
        run++;
      }
      if (run > i) {
        writes.add(notified(items.subList(i, run)));
        i = run;
        continue;
      }
      Item item = items.get(i);
      if (item.event() instanceof AgentDeregistered e) {
        writes.addAll(
            OwedAfterDelete.moved(item.agentId(), item.seqNr(), e.at(), e.replies().size()));
      }
      writes.add(single(item));
      if (item.event() instanceof AgentRegistered) {
        writes.add(OwedAfterDelete.takenBack(writer, item.agentId()));
      }
      i++;
    }
    return writes;
  }

  /** Events whose every column an activation's end sets again (their counts aside). */
  private static boolean foldableIntoEnd(Event event) {
    return event instanceof NotificationReceived
        || event instanceof LeaseGranted
        || event instanceof LeaseRenewed;
  }

  /** A run of notifications as one update. */
  private ScheduleWrite notified(List<Item> run) {
    Item first = run.get(0);
    Item last = run.get(run.size() - 1);
    Instant earliest = first.event().at();
    for (Item item : run) {
      Instant at = ((NotificationReceived) item.event()).notification().receivedAt();
      if (at.isBefore(earliest)) {
        earliest = at;
      }
    }
    Instant oldest = earliest;
    int n = run.size();
    return new Update(
            writer,
            first.agentId(),
            last.seqNr(),
            first.seqNr(),
            last.event().at(),
            NOTIFIED,
            s -> {
              s.setInt(1, n);
              return ScheduleColumns.bindEarliest(s, 2, oldest);
            },
            n == 1 ? first.event() : n + " notifications")
        .counting(Counter.NOTIFICATIONS_ACCEPTED, n);
  }

  /** An activation's end, with the events before it whose columns it sets again. */
  private ScheduleWrite ended(Item end, List<Item> folded) {
    ActivationEnded e = (ActivationEnded) end.event();
    String assignments = ENDED;
    Instant extra = null;
    Counter counter;
    if (e instanceof ActivationCompleted) {
      assignments = COMPLETED;
      extra = e.at();
      counter = Counter.ACTIVATIONS_COMPLETED;
    } else if (e instanceof ActivationFailed f) {
      if (f.action() == FailureAction.SNOOZE) {
        assignments = SNOOZED;
        extra = f.snoozedUntil();
      }
      counter = Counter.ACTIVATIONS_FAILED;
    } else if (e instanceof LeaseExpired) {
      counter = Counter.ACTIVATIONS_EXPIRED;
    } else if (e instanceof LeaseInterrupted) {
      counter = Counter.ACTIVATIONS_INTERRUPTED;
    } else {
      throw new IllegalArgumentException("unknown activation end " + e.getClass().getName());
    }
    // COMPLETED and SNOOZED bind one instant after ENDED's parameters.
    Instant extraValue = extra;
    boolean hasExtra = !assignments.equals(ENDED);
    String agentId = end.agentId();
    long guard = folded.isEmpty() ? end.seqNr() : folded.get(0).seqNr();
    Update update =
        new Update(
            writer,
            agentId,
            end.seqNr(),
            guard,
            e.at(),
            assignments,
            s -> {
              s.setInt(1, e.inboxAfter().unread());
              Sql.setInstant(s, 2, e.inboxAfter().oldestUnreadAt());
              Sql.setInstant(s, 3, e.inboxAfter().nextFireAt());
              s.setInt(4, e.deadLettered().size() - e.droppedDeadLetters().size());
              s.setInt(5, owed(e));
              if (hasExtra) {
                Sql.setInstant(s, 6, extraValue);
                return 7;
              }
              return 6;
            },
            e);
    for (Item item : folded) {
      if (item.event() instanceof NotificationReceived) {
        update.counting(Counter.NOTIFICATIONS_ACCEPTED, 1);
      } else if (item.event() instanceof LeaseGranted g) {
        update.counting(grantCounter(g), 1);
      }
    }
    for (DeadLetter dead : e.deadLettered()) {
      update.then(() -> writer.insertDeadLetter(agentId, dead));
    }
    for (String dropped : e.droppedDeadLetters()) {
      update.then(() -> writer.deleteDeadLetter(dropped));
    }
    return update
        .counting(counter, 1)
        .counting(Counter.NOTIFICATIONS_DEAD_LETTERED, e.deadLettered().size());
  }

  /** One event on its own. */
  private ScheduleWrite single(Item item) {
    String agentId = item.agentId();
    long seqNr = item.seqNr();
    Event event = item.event();
    if (event instanceof AgentRegistered e) {
      Registration registration = new Registration(writer, agentId, seqNr, e);
      return insertFirst ? new InsertIfNew(registration) : registration;
    }
    if (event instanceof AgentDeregistered) {
      return new Deregistration(writer, agentId, seqNr);
    }
    if (event instanceof AgentUpdated e) {
      return update(
          item,
          CONFIGURED,
          s -> {
            int i = ScheduleColumns.bindConfig(s, 1, agentId, e.config());
            Sql.setInstant(s, i, e.nextFireAt());
            return i + 1;
          });
    }
    if (event instanceof NotificationReceived) {
      return notified(List.of(item));
    }
    if (event instanceof LeaseGranted e) {
      return update(item, LEASED, s -> ScheduleColumns.bindLease(s, e))
          .counting(grantCounter(e), 1);
    }
    if (event instanceof LeaseRenewed e) {
      return update(
          item,
          RENEWED,
          s -> {
            Sql.setInstant(s, 1, e.expiresAt());
            return 2;
          });
    }
    if (event instanceof ActivationEnded) {
      return ended(item, List.of());
    }
    if (event instanceof NotificationSteered || event instanceof NotificationRejected) {
      // A steered notification was counted by its NotificationReceived and stays unread until the
      // lease ends; a rejected one was never stored.
      return update(item, UNCHANGED, s -> 1);
    }
    if (event instanceof ReplyLate || event instanceof AgentEvents.SnapshotTaken) {
      return update(item, UNCHANGED, s -> 1);
    }
    if (event instanceof SendDelivered) {
      return owedLess(item, ONE_OWED_LESS);
    }
    if (event instanceof SendUndeliverable e) {
      if (e.deadLetter() == null) {
        return owedLess(item, ONE_OWED_LESS);
      }
      return owedLess(item, ONE_OWED_LESS + ", dead_letters = dead_letters + 1")
          .then(() -> writer.insertDeadLetter(agentId, e.deadLetter()))
          .counting(Counter.NOTIFICATIONS_DEAD_LETTERED, 1);
    }
    if (event instanceof CallResolved e) {
      // A reply held for its group adds nothing to the inbox until the group's last one.
      if (e.toInbox() == 0) {
        return update(item, UNCHANGED, s -> 1);
      }
      return update(
          item,
          NOTIFIED,
          s -> {
            s.setInt(1, e.toInbox());
            return ScheduleColumns.bindEarliest(s, 2, e.at());
          });
    }
    if (event instanceof AgentPaused || event instanceof AgentResumed) {
      boolean paused = event instanceof AgentPaused;
      return update(
          item,
          PAUSED,
          s -> {
            s.setBoolean(1, paused);
            return 2;
          });
    }
    if (event instanceof DeadLetterRedriven e) {
      return update(item, REDRIVEN, s -> ScheduleColumns.bindEarliest(s, 1, e.at()))
          .then(() -> writer.deleteDeadLetter(e.deadLetterId()));
    }
    if (event instanceof DeadLetterDiscarded e) {
      return update(item, ONE_DEAD_LETTER_LESS, s -> 1)
          .then(() -> writer.deleteDeadLetter(e.deadLetterId()));
    }
    // A new event type must be handled here: an unknown one fails (and ReadModelUpdate skips it,
    // logged and counted) rather than let the read model drift silently.
    throw new IllegalArgumentException("unknown agent event " + event.getClass().getName());
  }

  /** An outbox item settled: one less owed by the row, or by the deregistered agent without one. */
  private Update owedLess(Item item, String assignments) {
    return update(item, assignments, s -> 1)
        .otherwise(
            () -> OwedAfterDelete.settled(writer, item.agentId(), item.seqNr(), item.event().at()));
  }

  private Update update(Item item, String assignments, Binder binder) {
    return new Update(
        writer,
        item.agentId(),
        item.seqNr(),
        item.seqNr(),
        item.event().at(),
        assignments,
        binder,
        item.event());
  }

  /** The outbox items an activation's end adds: its sends, and replies to calls it answers. */
  private static int owed(ActivationEnded e) {
    if (e instanceof ActivationCompleted c) {
      return c.sends().size();
    }
    if (e instanceof ActivationFailed f) {
      return f.replies().size();
    }
    if (e instanceof LeaseExpired x) {
      return x.replies().size();
    }
    return 0;
  }

  private static Counter grantCounter(LeaseGranted e) {
    return switch (e.lease().kind()) {
      case EXPLORATION -> Counter.ACTIVATIONS_EXPLORATION;
      case SCHEDULED -> Counter.ACTIVATIONS_SCHEDULED;
      default -> Counter.ACTIVATIONS_INBOX;
    };
  }
}
