package dev.rota.cluster.readmodel;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import dev.rota.cluster.agent.AgentEvents;
import dev.rota.cluster.agent.AgentEvents.Event;
import dev.rota.cluster.agent.AgentEvents.InboxSummary;
import dev.rota.cluster.journal.ReadModelSink.Persisted;
import dev.rota.cluster.testing.TestDatabase;
import dev.rota.core.model.ActivationKind;
import dev.rota.core.model.AgentConfig;
import dev.rota.core.model.AgentSummary;
import dev.rota.core.model.DeadLetter;
import dev.rota.core.model.FailureAction;
import dev.rota.core.model.Ids;
import dev.rota.core.model.Lease;
import dev.rota.core.model.Notification;
import dev.rota.core.model.OutboxItem;
import dev.rota.core.model.Partitions;
import dev.rota.core.scheduling.AgentSchedule;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The read model's SQL and its queries, on a real database: subclasses pick H2 or PostgreSQL.
 * Events are fed to {@link ReadModelUpdate} as the journal's writer feeds its sink, one transaction
 * per call, without actors.
 */
abstract class ReadModelContract {
  static final int PARTITIONS = 4;
  static final Instant T0 = Instant.parse("2026-11-22T09:00:00Z");

  protected abstract TestDatabase db();

  private ReadModel readModel;
  private final Map<String, Long> seqNrs = new HashMap<>();

  @BeforeEach
  void clear() {
    db().clearReadModel();
    readModel = new ReadModel(db().dataSource());
  }

  // ---- tests ----

  @Test
  void registersAgentInItsPartitionWithSortedCapabilities() {
    emit("a1", registered("a1", List.of("web", "code"), 7, T0));

    assertEquals(Partitions.of("a1", PARTITIONS), (int) number("a1", "partition_id"));
    assertEquals("code,web", text("a1", "capabilities"));
    assertEquals("name-a1", text("a1", "name"));
    assertEquals(T0, instant("a1", "registered_at"));
    ScheduleRow row = only(readModel.loadPartition(Partitions.of("a1", PARTITIONS)), "a1");
    assertEquals(
        new AgentSchedule(
            "a1",
            Set.of("code", "web"),
            7,
            0,
            null,
            null,
            Duration.ofSeconds(30),
            false,
            false,
            null),
        row.schedule());
    assertEquals(1, row.seqNr());
  }

  @Test
  void skipsAnEventItCannotApplyRecordsItAndKeepsTheGroupsOtherEvents() {
    emit("a1", registered("a1", List.of(), 0, T0));
    // A config the writer cannot read stands for any event that breaks it (a bug); on
    // PostgreSQL, a NUL in a name is a value the table cannot hold (H2 holds it).
    AgentConfig withNul = new AgentConfig("a\u0000b", List.of(), 0, 0, 100, 3, null);
    process(
        List.of(
            next("a1", notified("n1", T0.plusSeconds(1))),
            next("a1", new AgentEvents.AgentUpdated(null, T0.plusSeconds(2))),
            next("a1", new AgentEvents.AgentUpdated(withNul, T0.plusSeconds(3))),
            next("a1", notified("n2", T0.plusSeconds(4)))));

    assertEquals(2, schedule("a1").unread(), "the events around the poison ones are applied");
    long skipped = db().holdsNul() ? 1 : 2;
    assertEquals(skipped, readModel.skippedEvents());
    assertEquals(skipped, readModel.stats(T0).skippedEvents());
    assertEquals(db().holdsNul() ? "a\u0000b" : "name-a1", text("a1", "name"));

    emit("a1", notified("n3", T0.plusSeconds(5)));
    assertEquals(3, schedule("a1").unread(), "the partition keeps moving after the skip");
  }

  @Test
  void aSkippedRegistrationLeavesAMarkedRowThatCoordinatorsStillLoad() {
    // A registration the writer cannot apply: before, the agent never had a row again.
    process(List.of(next("a1", new AgentEvents.AgentRegistered(null, T0))));
    emit("a1", notified("n1", T0.plusSeconds(1)));

    assertEquals(1, readModel.skippedEvents());
    AgentSchedule seen = schedule("a1");
    assertEquals("a1", seen.agentId());
    assertEquals(List.of("a1"), readModel.rowsToRebuild(10));
  }

  @Test
  void aSkippedGrantIsRebuiltFromTheAgentSoTheRescuerSeesTheLease() {
    emit("a1", registered("a1", List.of("code"), 0, T0), notified("n1", T0));
    // A grant the writer cannot apply (no kind): the row does not show the lease.
    Lease broken =
        new Lease(
            Ids.leaseId("a1", 1),
            "runner-1",
            null,
            1,
            1,
            T0,
            T0.plusSeconds(30),
            30,
            List.of("n1"));
    emit("a1", new AgentEvents.LeaseGranted(broken));
    Instant afterExpiry = T0.plusSeconds(60);
    assertEquals(List.of(), readModel.expiredLeases(afterExpiry, 10));
    assertEquals(List.of("a1"), readModel.rowsToRebuild(10));

    // The entity's answer, as of the grant (event 3).
    Lease held = lease("a1", 1, ActivationKind.INBOX, T0, List.of("n1"));
    AgentSummary agent =
        new AgentSummary(
            "a1",
            true,
            new AgentConfig("name-a1", List.of("code"), 0, 30, 100, 3, null),
            1,
            T0,
            0,
            held,
            null,
            0,
            null,
            false,
            List.of());
    assertFalse(readModel.rebuildRow(agent, 1, T0.plusSeconds(2)), "older than the row");
    assertEquals(List.of("a1"), readModel.rowsToRebuild(10));
    assertTrue(readModel.rebuildRow(agent, 3, T0.plusSeconds(2)));

    assertEquals(List.of(), readModel.rowsToRebuild(10));
    List<ExpiredLease> expired = readModel.expiredLeases(afterExpiry, 10);
    assertEquals(1, expired.size(), expired.toString());
    assertEquals(held.leaseId(), expired.get(0).leaseId());
    assertTrue(schedule("a1").leased());
    assertEquals(Set.of("code"), schedule("a1").capabilities());
    assertEquals(3, number("a1", "seq_nr"));
    // The writer goes on from the rebuilt row.
    emit("a1", notified("n2", T0.plusSeconds(3)));
    assertEquals(2, schedule("a1").unread());
  }

  @Test
  void aRebuildOfAnAgentThatIsNoLongerRegisteredDeletesItsRow() {
    process(List.of(next("a1", new AgentEvents.AgentRegistered(null, T0))));
    AgentSummary gone =
        new AgentSummary(
            "a1",
            false,
            AgentConfig.defaults("a1"),
            0,
            null,
            0,
            null,
            null,
            0,
            null,
            false,
            List.of());

    assertTrue(readModel.rebuildRow(gone, 2, T0.plusSeconds(1)));

    assertFalse(exists("a1"));
  }

  @Test
  void keepsTheConfigurationAndTheGrantTimeForListings() {
    emit("a1", registered("a1", List.of("code"), 4, T0));
    Lease lease = lease("a1", 1, ActivationKind.INBOX, T0.plusSeconds(5), List.of());
    emit("a1", new AgentEvents.LeaseGranted(lease));

    assertTrue(text("a1", "config").contains("\"maxInboxDepth\":100"), text("a1", "config"));
    assertEquals(T0.plusSeconds(5), instant("a1", "lease_granted_at"));
  }

  @Test
  void notificationsRaiseUnreadAndKeepTheOldest() {
    emit("a1", registered("a1", List.of(), 0, T0));
    emit("a1", notified("n1", T0.plusSeconds(1)), notified("n2", T0.plusSeconds(2)));
    emit("a1", notified("n3", T0.plusSeconds(3)));

    AgentSchedule s = schedule("a1");
    assertEquals(3, s.unread());
    assertEquals(T0.plusSeconds(1), s.oldestUnreadAt());
    assertEquals(4, number("a1", "seq_nr"));
    assertEquals(T0.plusSeconds(3), instant("a1", "updated_at"));
    assertEquals(3, readModel.stats(T0).counter(Counter.NOTIFICATIONS_ACCEPTED));
  }

  @Test
  void grantAndRenewalRecordTheLease() {
    emit("a1", registered("a1", List.of(), 0, T0), notified("n1", T0));
    Lease lease = lease("a1", 1, ActivationKind.INBOX, T0.plusSeconds(1), List.of("n1"));
    emit("a1", new AgentEvents.LeaseGranted(lease));

    assertTrue(schedule("a1").leased());
    assertEquals(lease.leaseId(), text("a1", "lease_id"));
    assertEquals("runner-1", text("a1", "lease_runner_id"));
    assertEquals("inbox", text("a1", "lease_kind"));
    assertEquals(lease.expiresAt(), instant("a1", "lease_expires_at"));
    assertEquals(Optional.of(lease.leaseId()), readModel.leaseOf("runner-1"));
    assertEquals(Optional.empty(), readModel.leaseOf("runner-2"));
    assertEquals(Map.of("runner-1", lease.leaseId()), readModel.leasesByRunner());

    Instant renewedTo = T0.plusSeconds(100);
    emit("a1", new AgentEvents.LeaseRenewed(lease.leaseId(), renewedTo, T0.plusSeconds(40)));
    assertEquals(renewedTo, instant("a1", "lease_expires_at"));
    assertEquals(1, readModel.stats(T0).counter(Counter.ACTIVATIONS_INBOX));
  }

  @Test
  void completionClearsTheLeaseAndCountsTheActivation() {
    emit("a1", registered("a1", List.of(), 0, T0), notified("n1", T0), notified("n2", T0));
    Lease lease = lease("a1", 1, ActivationKind.INBOX, T0, List.of("n1", "n2"));
    Instant done = T0.plusSeconds(5);
    emit(
        "a1",
        new AgentEvents.LeaseGranted(lease),
        notified("n3", T0.plusSeconds(3)),
        new AgentEvents.ActivationCompleted(
            lease.leaseId(), null, done, new InboxSummary(1, T0.plusSeconds(3))));

    AgentSchedule s = schedule("a1");
    assertFalse(s.leased());
    assertEquals(1, s.unread());
    assertEquals(T0.plusSeconds(3), s.oldestUnreadAt());
    assertEquals(done, s.lastActivatedAt());
    assertEquals(1, number("a1", "activation_count"));
    assertNull(text("a1", "lease_runner_id"));
    assertNull(instant("a1", "lease_expires_at"));
    assertEquals(Optional.empty(), readModel.leaseOf("runner-1"));
    assertEquals(Map.of(), readModel.leasesByRunner());
    ReadModelStats stats = readModel.stats(done);
    assertEquals(1, stats.counter(Counter.ACTIVATIONS_COMPLETED));
    assertEquals(3, stats.counter(Counter.NOTIFICATIONS_ACCEPTED));
  }

  @Test
  void nextFireFollowsRegistrationUpdatesAndTheEndOfAScheduledTurn() {
    AgentConfig config = new AgentConfig("name-a1", List.of(), 0, 30, 100, 3, null);
    emit("a1", new AgentEvents.AgentRegistered(config, T0, T0.plusSeconds(60)));
    assertEquals(T0.plusSeconds(60), schedule("a1").nextFireAt());

    emit("a1", new AgentEvents.AgentUpdated(config, T0.plusSeconds(1), T0.plusSeconds(120)));
    assertEquals(T0.plusSeconds(120), schedule("a1").nextFireAt());

    Lease lease =
        new Lease(
            Ids.leaseId("a1", 1),
            "runner-1",
            ActivationKind.SCHEDULED,
            1,
            1,
            T0.plusSeconds(130),
            T0.plusSeconds(160),
            30,
            List.of(),
            new dev.rota.core.model.ScheduleFire("tick", T0.plusSeconds(120)));
    emit(
        "a1",
        new AgentEvents.LeaseGranted(lease),
        new AgentEvents.ActivationCompleted(
            lease.leaseId(),
            null,
            T0.plusSeconds(140),
            new InboxSummary(0, null, T0.plusSeconds(180))));

    AgentSchedule s = schedule("a1");
    assertEquals(T0.plusSeconds(180), s.nextFireAt());
    assertEquals(T0.plusSeconds(140), s.lastActivatedAt());
    assertEquals(1, readModel.stats(T0).counter(Counter.ACTIVATIONS_SCHEDULED));
    assertEquals(0, readModel.stats(T0).counter(Counter.ACTIVATIONS_INBOX));
  }

  @Test
  void failureDeadLettersExhaustedNotificationsAndSnoozeSetsSnoozedUntil() {
    emit("a1", registered("a1", List.of(), 0, T0), notified("n1", T0));
    Lease first = lease("a1", 1, ActivationKind.INBOX, T0, List.of("n1"));
    Instant failedAt = T0.plusSeconds(2);
    DeadLetter dead = deadLetter("a1", "n1", 3, failedAt);
    emit(
        "a1",
        new AgentEvents.LeaseGranted(first),
        new AgentEvents.ActivationFailed(
            first.leaseId(),
            FailureAction.RETRY,
            "boom",
            null,
            failedAt,
            new InboxSummary(0, null),
            List.of(dead)));

    AgentSchedule s = schedule("a1");
    assertEquals(0, s.unread());
    assertNull(s.oldestUnreadAt());
    assertFalse(s.leased());
    assertEquals(1, number("a1", "dead_letters"));
    List<DeadLetterRow> rows = readModel.deadLetters("a1", 10);
    assertEquals(
        List.of(
            new DeadLetterRow(
                dead.id(),
                "a1",
                "n1",
                "mention",
                "{\"post\":\"n1\"}",
                3,
                "attempts exhausted: boom",
                failedAt)),
        rows);

    Lease second = lease("a1", 2, ActivationKind.EXPLORATION, T0.plusSeconds(3), List.of());
    Instant until = T0.plusSeconds(600);
    emit(
        "a1",
        new AgentEvents.LeaseGranted(second),
        new AgentEvents.ActivationFailed(
            second.leaseId(),
            FailureAction.SNOOZE,
            "later",
            until,
            T0.plusSeconds(4),
            new InboxSummary(0, null),
            List.of()));

    assertEquals(until, schedule("a1").snoozedUntil());
    ReadModelStats stats = readModel.stats(T0.plusSeconds(5));
    assertEquals(1, stats.snoozed());
    assertEquals(0, readModel.stats(until.plusSeconds(1)).snoozed());
    assertEquals(2, stats.counter(Counter.ACTIVATIONS_FAILED));
    assertEquals(1, stats.counter(Counter.ACTIVATIONS_EXPLORATION));
    assertEquals(1, stats.counter(Counter.NOTIFICATIONS_DEAD_LETTERED));
    assertEquals(1, stats.deadLetters());
  }

  @Test
  void steeringKeepsTheLeaseAndCountsTheNotificationOnceAndARejectionChangesNothing() {
    emit("a1", registered("a1", List.of(), 0, T0), notified("n1", T0));
    Lease lease = lease("a1", 1, ActivationKind.INBOX, T0, List.of("n1"));
    emit(
        "a1",
        new AgentEvents.LeaseGranted(lease),
        notified("n2", T0.plusSeconds(2)),
        new AgentEvents.NotificationSteered("n2", lease.leaseId(), T0.plusSeconds(2)),
        new AgentEvents.NotificationRejected("t", null, lease.leaseId(), T0.plusSeconds(3)));

    AgentSchedule s = schedule("a1");
    assertTrue(s.leased());
    assertEquals(2, s.unread());
    ReadModelStats stats = readModel.stats(T0);
    assertEquals(2, stats.counter(Counter.NOTIFICATIONS_ACCEPTED));
    assertEquals(0, stats.skippedEvents());
  }

  @Test
  void anInterruptClearsTheLeaseKeepsTheInboxAndCountsAsInterrupted() {
    emit("a1", registered("a1", List.of(), 0, T0), notified("n1", T0));
    Lease lease = lease("a1", 1, ActivationKind.INBOX, T0, List.of("n1"));
    emit(
        "a1",
        new AgentEvents.LeaseGranted(lease),
        notified("n2", T0.plusSeconds(2)),
        new AgentEvents.LeaseInterrupted(
            lease.leaseId(), "n2", T0.plusSeconds(2), new InboxSummary(2, T0)));

    AgentSchedule s = schedule("a1");
    assertFalse(s.leased());
    assertEquals(2, s.unread());
    assertEquals(T0, s.oldestUnreadAt());
    assertNull(s.lastActivatedAt());
    ReadModelStats stats = readModel.stats(T0);
    assertEquals(1, stats.counter(Counter.ACTIVATIONS_INTERRUPTED));
    assertEquals(2, stats.counter(Counter.NOTIFICATIONS_ACCEPTED));
  }

  @Test
  void expiryCountsAsExpiredAndKeepsTheRetriedInbox() {
    emit("a1", registered("a1", List.of(), 0, T0), notified("n1", T0));
    Lease lease = lease("a1", 1, ActivationKind.INBOX, T0, List.of("n1"));
    emit(
        "a1",
        new AgentEvents.LeaseGranted(lease),
        new AgentEvents.LeaseExpired(
            lease.leaseId(), T0.plusSeconds(31), new InboxSummary(1, T0), List.of()));

    AgentSchedule s = schedule("a1");
    assertFalse(s.leased());
    assertEquals(1, s.unread());
    assertEquals(T0, s.oldestUnreadAt());
    assertEquals(1, readModel.stats(T0).counter(Counter.ACTIVATIONS_EXPIRED));
  }

  @Test
  void redriveMovesTheDeadLetterBackToTheInbox() {
    emit("a1", registered("a1", List.of(), 0, T0), notified("n1", T0));
    Lease lease = lease("a1", 1, ActivationKind.INBOX, T0, List.of("n1"));
    DeadLetter dead = deadLetter("a1", "n1", 0, T0.plusSeconds(1));
    emit(
        "a1",
        new AgentEvents.LeaseGranted(lease),
        new AgentEvents.ActivationFailed(
            lease.leaseId(),
            FailureAction.CANCEL,
            "no",
            null,
            T0.plusSeconds(1),
            new InboxSummary(0, null),
            List.of(dead)));
    Instant redriven = T0.plusSeconds(9);
    emit("a1", new AgentEvents.DeadLetterRedriven(dead.id(), redriven));

    AgentSchedule s = schedule("a1");
    assertEquals(1, s.unread());
    assertEquals(redriven, s.oldestUnreadAt());
    assertEquals(0, number("a1", "dead_letters"));
    assertEquals(List.of(), readModel.deadLetters(null, 10));
  }

  @Test
  void discardDeletesTheDeadLetterAndLeavesTheInbox() {
    emit("a1", registered("a1", List.of(), 0, T0), notified("n1", T0), notified("n2", T0));
    Lease lease = lease("a1", 1, ActivationKind.INBOX, T0, List.of("n1"));
    DeadLetter dead = deadLetter("a1", "n1", 0, T0.plusSeconds(1));
    emit(
        "a1",
        new AgentEvents.LeaseGranted(lease),
        new AgentEvents.ActivationFailed(
            lease.leaseId(),
            FailureAction.CANCEL,
            "no",
            null,
            T0.plusSeconds(1),
            new InboxSummary(1, T0),
            List.of(dead)));
    assertEquals(1, number("a1", "dead_letters"));
    assertEquals(1, readModel.stats(T0).deadLetters());

    emit("a1", new AgentEvents.DeadLetterDiscarded(dead.id(), T0.plusSeconds(9)));

    AgentSchedule s = schedule("a1");
    assertEquals(1, s.unread());
    assertEquals(T0, s.oldestUnreadAt());
    assertEquals(0, number("a1", "dead_letters"));
    assertEquals(List.of(), readModel.deadLetters(null, 10));
    ReadModelStats stats = readModel.stats(T0);
    assertEquals(0, stats.deadLetters());
    // The counter counts notifications that died, not those still dead.
    assertEquals(1, stats.counter(Counter.NOTIFICATIONS_DEAD_LETTERED));
  }

  @Test
  void pauseAndResumeFlipTheFlagAndUpdateKeepsTheInbox() {
    emit("a1", registered("a1", List.of("web"), 0, T0), notified("n1", T0));
    emit("a1", new AgentEvents.AgentPaused(T0.plusSeconds(1)));
    assertTrue(schedule("a1").paused());
    assertEquals(1, readModel.stats(T0).paused());

    AgentConfig changed = new AgentConfig("renamed", List.of("gpu", "web"), 9, 60, 10, 5, null);
    emit(
        "a1",
        new AgentEvents.AgentResumed(T0.plusSeconds(2)),
        new AgentEvents.AgentUpdated(changed, T0.plusSeconds(3)));

    AgentSchedule s = schedule("a1");
    assertFalse(s.paused());
    assertEquals(Set.of("gpu", "web"), s.capabilities());
    assertEquals(9, s.priority());
    assertEquals(Duration.ofSeconds(60), s.minActivationInterval());
    assertEquals(1, s.unread());
    assertEquals("renamed", text("a1", "name"));
  }

  @Test
  void deregistrationDeletesTheRowAndItsDeadLetters() {
    emit("a1", registered("a1", List.of(), 0, T0), notified("n1", T0));
    emit("a2", registered("a2", List.of(), 0, T0), notified("m1", T0));
    failWithDeadLetter("a1", "n1", T0.plusSeconds(1));
    failWithDeadLetter("a2", "m1", T0.plusSeconds(2));
    assertEquals(2, readModel.deadLetters(null, 10).size());

    emit("a1", new AgentEvents.AgentDeregistered(T0.plusSeconds(3)));

    assertFalse(exists("a1"));
    assertEquals(
        List.of("a2"), readModel.deadLetters(null, 10).stream().map(d -> d.agentId()).toList());
    assertEquals(1, readModel.stats(T0).registered());
  }

  @Test
  void reregistrationAfterDeregistrationStartsAfresh() {
    emit("a1", registered("a1", List.of(), 0, T0), notified("n1", T0));
    emit("a1", new AgentEvents.AgentDeregistered(T0.plusSeconds(1)));
    emit("a1", registered("a1", List.of("x"), 1, T0.plusSeconds(2)));

    AgentSchedule s = schedule("a1");
    assertEquals(0, s.unread());
    assertEquals(Set.of("x"), s.capabilities());
    assertEquals(T0.plusSeconds(2), instant("a1", "registered_at"));
    assertEquals(4, number("a1", "seq_nr"));
  }

  @Test
  void aRegistrationNewerThanAnExistingRowResetsIt() {
    // A row of an older life whose deregistration the read model never saw (e.g. skipped): the
    // newer registration finds the row (on PostgreSQL its insert conflicts) and starts afresh.
    emit("a1", registered("a1", List.of(), 0, T0), notified("n1", T0));
    failWithDeadLetter("a1", "n1", T0.plusSeconds(1));
    assertEquals(1, readModel.deadLetters("a1", 10).size());

    process(redeliverable("a1", 9, registered("a1", List.of("y"), 2, T0.plusSeconds(5))));

    AgentSchedule s = schedule("a1");
    assertEquals(Set.of("y"), s.capabilities());
    assertEquals(0, s.unread());
    assertEquals(T0.plusSeconds(5), instant("a1", "registered_at"));
    assertEquals(9, number("a1", "seq_nr"));
    assertEquals(0, readModel.deadLetters("a1", 10).size());
    assertEquals(1, readModel.stats(T0).registered());
  }

  @Test
  void oneGroupOfManyAgentsCountsEveryEventOnce() {
    // Interleaved agents in one transaction: registrations (inserted in a batch), runs of
    // notifications (one update each), and grant + notification + completion folded into the
    // completion's update; one agent's activation fails with a dead letter in the same group.
    List<Persisted> group = new ArrayList<>();
    for (int i = 0; i < 12; i++) {
      group.add(next("g" + i, registered("g" + i, List.of(), 0, T0)));
    }
    for (int i = 0; i < 12; i++) {
      group.add(next("g" + i, notified("g" + i + "-n1", T0.plusSeconds(i + 1))));
      group.add(next("g" + i, notified("g" + i + "-n2", T0.plusSeconds(i + 2))));
    }
    Lease lease =
        lease("g0", 1, ActivationKind.INBOX, T0.plusSeconds(20), List.of("g0-n1", "g0-n2"));
    group.add(next("g0", new AgentEvents.LeaseGranted(lease)));
    group.add(next("g0", notified("g0-n3", T0.plusSeconds(21))));
    group.add(
        next(
            "g0",
            new AgentEvents.ActivationCompleted(
                lease.leaseId(),
                null,
                T0.plusSeconds(22),
                new InboxSummary(1, T0.plusSeconds(21)))));
    Lease failing =
        lease("g1", 1, ActivationKind.EXPLORATION, T0.plusSeconds(20), List.of("g1-n1"));
    group.add(next("g1", new AgentEvents.LeaseGranted(failing)));
    group.add(
        next(
            "g1",
            new AgentEvents.ActivationFailed(
                failing.leaseId(),
                FailureAction.DISCARD,
                "no",
                null,
                T0.plusSeconds(23),
                new InboxSummary(1, T0.plusSeconds(3)),
                List.of(deadLetter("g1", "g1-n1", 0, T0.plusSeconds(23))))));
    process(group);

    AgentSchedule g0 = schedule("g0");
    assertFalse(g0.leased());
    assertEquals(1, g0.unread());
    assertEquals(T0.plusSeconds(21), g0.oldestUnreadAt());
    assertEquals(T0.plusSeconds(22), g0.lastActivatedAt());
    assertEquals(6, number("g0", "seq_nr"));
    assertEquals(1, schedule("g1").unread());
    assertEquals(1, number("g1", "dead_letters"));
    for (int i = 2; i < 12; i++) {
      AgentSchedule s = schedule("g" + i);
      assertEquals(2, s.unread());
      assertEquals(T0.plusSeconds(i + 1), s.oldestUnreadAt());
      assertEquals(3, number("g" + i, "seq_nr"));
    }
    ReadModelStats stats = readModel.stats(T0.plusSeconds(30));
    assertEquals(12, stats.registered());
    assertEquals(25, stats.counter(Counter.NOTIFICATIONS_ACCEPTED));
    assertEquals(1, stats.counter(Counter.ACTIVATIONS_INBOX));
    assertEquals(1, stats.counter(Counter.ACTIVATIONS_EXPLORATION));
    assertEquals(1, stats.counter(Counter.ACTIVATIONS_COMPLETED));
    assertEquals(1, stats.counter(Counter.ACTIVATIONS_FAILED));
    assertEquals(1, stats.counter(Counter.NOTIFICATIONS_DEAD_LETTERED));

    // The same group again (a re-delivery) changes nothing.
    process(group);
    assertEquals(25, readModel.stats(T0).counter(Counter.NOTIFICATIONS_ACCEPTED));
    assertEquals(1, schedule("g0").unread());
  }

  @Test
  void ignoresEventsNotNewerThanTheRow() {
    emit("a1", registered("a1", List.of(), 0, T0));
    List<Persisted> batch =
        emit(
            "a1",
            notified("n1", T0.plusSeconds(1)),
            new AgentEvents.LeaseGranted(
                lease("a1", 1, ActivationKind.INBOX, T0.plusSeconds(2), List.of("n1"))));
    List<Persisted> registration = redeliverable("a1", 1, registered("a1", List.of("z"), 5, T0));

    process(batch);
    process(registration);

    AgentSchedule s = schedule("a1");
    assertEquals(1, s.unread());
    assertTrue(s.leased());
    assertEquals(Set.of(), s.capabilities());
    assertEquals(3, number("a1", "seq_nr"));
    ReadModelStats stats = readModel.stats(T0);
    assertEquals(1, stats.counter(Counter.NOTIFICATIONS_ACCEPTED));
    assertEquals(1, stats.counter(Counter.ACTIVATIONS_INBOX));
  }

  @Test
  void ignoresEventsOfAnAgentWithoutRow() {
    emit("ghost", notified("n1", T0));

    assertFalse(exists("ghost"));
    assertEquals(0, readModel.stats(T0).counter(Counter.NOTIFICATIONS_ACCEPTED));
  }

  @Test
  void loadPartitionReturnsOnlyThatPartitionsAgents() {
    List<String> ids = new ArrayList<>();
    for (int i = 0; i < 12; i++) {
      String id = "agent-" + i;
      ids.add(id);
      emit(id, registered(id, List.of(), 0, T0));
    }
    int total = 0;
    for (int p = 0; p < PARTITIONS; p++) {
      int partition = p;
      List<ScheduleRow> rows = readModel.loadPartition(p);
      total += rows.size();
      rows.forEach(r -> assertEquals(partition, Partitions.of(r.schedule().agentId(), PARTITIONS)));
      List<String> expected =
          ids.stream().filter(id -> Partitions.of(id, PARTITIONS) == partition).sorted().toList();
      assertEquals(expected, rows.stream().map(r -> r.schedule().agentId()).toList());
    }
    assertEquals(12, total);
  }

  @Test
  void expiredLeasesAreTheOnesPastTheGivenInstantOldestFirst() {
    for (int i = 0; i < 4; i++) {
      String id = "a" + i;
      emit(id, registered(id, List.of(), 0, T0));
      emit(
          id,
          new AgentEvents.LeaseGranted(
              lease(id, 1, ActivationKind.EXPLORATION, T0.plusSeconds(10 - i), List.of())));
    }
    // a_i expires at T0 + 40 - i seconds (30 s leases granted at T0 + 10 - i)
    List<ExpiredLease> expired = readModel.expiredLeases(T0.plusSeconds(39), 2);

    assertEquals(List.of("a3", "a2"), expired.stream().map(ExpiredLease::agentId).toList());
    assertEquals(T0.plusSeconds(37), expired.get(0).expiresAt());
    assertEquals(Ids.agentOf(expired.get(1).leaseId()), Optional.of("a2"));
    assertEquals(List.of(), readModel.expiredLeases(T0.plusSeconds(37), 10));
  }

  @Test
  void statsSumAgentsInboxesDeadLettersAndStaleness() {
    emit("a1", registered("a1", List.of(), 0, T0), notified("n1", T0.plusSeconds(5)));
    emit("a2", registered("a2", List.of(), 0, T0.plusSeconds(1)));
    emit(
        "a3", registered("a3", List.of(), 0, T0.plusSeconds(2)), notified("m1", T0.plusSeconds(3)));
    emit("a3", notified("m2", T0.plusSeconds(4)));
    Lease lease = lease("a3", 1, ActivationKind.INBOX, T0.plusSeconds(6), List.of("m1", "m2"));
    emit(
        "a3",
        new AgentEvents.LeaseGranted(lease),
        new AgentEvents.ActivationCompleted(
            lease.leaseId(), null, T0.plusSeconds(7), new InboxSummary(0, null)));
    emit(
        "a2",
        new AgentEvents.LeaseGranted(
            lease("a2", 1, ActivationKind.EXPLORATION, T0.plusSeconds(8), List.of())));

    Instant now = T0.plusSeconds(100);
    ReadModelStats stats = readModel.stats(now);
    assertEquals(3, stats.registered());
    assertEquals(1, stats.withInbox());
    assertEquals(1, stats.leased());
    assertEquals(0, stats.paused());
    assertEquals(1, stats.unread());
    assertEquals(T0.plusSeconds(5), stats.oldestUnreadAt());
    assertEquals(Duration.ofSeconds(95), stats.oldestUnreadAge());
    // a1 never ran: stale since its registration at T0
    assertEquals(T0, stats.stalestAt());
    assertEquals(Duration.ofSeconds(100), stats.maxStaleness());
    assertEquals(3, stats.counter(Counter.NOTIFICATIONS_ACCEPTED));
    assertEquals(1, stats.counter(Counter.ACTIVATIONS_INBOX));
    assertEquals(1, stats.counter(Counter.ACTIVATIONS_EXPLORATION));
    assertEquals(1, stats.counter(Counter.ACTIVATIONS_COMPLETED));
    assertEquals(0, stats.counter(Counter.ACTIVATIONS_EXPIRED));
    assertEquals(Counter.values().length, stats.counters().size());
  }

  @Test
  void backlogGroupsUnpausedAgentsByCapabilitiesAndIntervalForThePoolScaler() {
    emit("a1", registered("a1", List.of("code"), 0, T0), notified("n1", T0.plusSeconds(5)));
    emit("a2", registered("a2", List.of("code"), 0, T0.plusSeconds(1)));
    emit("a3", registered("a3", List.of("code"), 0, T0.plusSeconds(2)));
    emit("a3", notified("m1", T0.plusSeconds(3)));
    emit(
        "a3",
        new AgentEvents.LeaseGranted(
            lease("a3", 1, ActivationKind.INBOX, T0.plusSeconds(6), List.of("m1"))));
    emit("a4", registered("a4", List.of(), 0, T0), new AgentEvents.AgentPaused(T0));
    emit("a5", registered("a5", List.of(), 0, T0.plusSeconds(9)));

    var groups = readModel.backlog(T0.plusSeconds(100));
    assertEquals(2, groups.size(), groups.toString());
    var code =
        groups.stream().filter(g -> g.capabilities().equals(Set.of("code"))).findFirst().get();
    assertEquals(30, code.minIntervalSeconds());
    assertEquals(3, code.agents());
    assertEquals(2, code.withInbox());
    assertEquals(1, code.waiting(), "a3's inbox is leased");
    assertEquals(T0.plusSeconds(3), code.oldestUnreadAt());
    assertEquals(T0.plusSeconds(1), code.stalestAt(), "a2: no inbox, no lease, never ran");
    var none = groups.stream().filter(g -> g.capabilities().isEmpty()).findFirst().get();
    assertEquals(1, none.agents(), "a4 is paused");
    assertEquals(T0.plusSeconds(9), none.stalestAt());
    assertNull(none.oldestUnreadAt());
    assertEquals(Map.of("runner-1", "inbox"), readModel.leaseKindsByRunner());
  }

  @Test
  void tenantsGroupAgentsByTheTenantTheirKeysName() {
    emit("a1", registered("a1", List.of(), 0, T0), notified("n1", T0.plusSeconds(5)));
    emit("acme/a1", registered("acme/a1", List.of(), 0, T0), notified("n2", T0.plusSeconds(3)));
    emit("acme/a1", notified("n3", T0.plusSeconds(4)));
    emit("acme/b2", registered("acme/b2", List.of(), 0, T0));
    emit(
        "acme/b2",
        new AgentEvents.LeaseGranted(
            lease("acme/b2", 1, ActivationKind.EXPLORATION, T0.plusSeconds(90), List.of())));
    emit("acme-2/a1", registered("acme-2/a1", List.of(), 0, T0));

    Map<String, TenantRow> tenants = readModel.tenants();
    assertEquals(Set.of("default", "acme", "acme-2"), tenants.keySet());
    TenantRow acme = tenants.get("acme");
    assertEquals(2, acme.agents());
    assertEquals(2, acme.unread());
    assertEquals(1, acme.leased());
    assertEquals(T0.plusSeconds(3), acme.oldestUnreadAt());
    TenantRow plain = tenants.get("default");
    assertEquals(1, plain.agents());
    assertEquals(1, plain.unread());
    assertEquals(0, plain.leased());
    assertNull(tenants.get("acme-2").oldestUnreadAt());
    assertEquals(2, readModel.agentsOfTenant("acme"));
    assertEquals(1, readModel.agentsOfTenant("acme-2"));
    assertEquals(1, readModel.agentsOfTenant("default"));
    assertEquals(0, readModel.agentsOfTenant("nobody"));
  }

  @Test
  void statsOfAnEmptyReadModelAreZero() {
    ReadModelStats stats = readModel.stats(T0);
    assertEquals(0, stats.registered());
    assertEquals(0, stats.unread());
    assertNull(stats.oldestUnreadAt());
    assertNull(stats.stalestAt());
    assertEquals(Duration.ZERO, stats.maxStaleness());
    assertEquals(0, stats.counter(Counter.ACTIVATIONS_COMPLETED));
  }

  @Test
  void deadLettersAreListedNewestFirstUpToTheLimit() {
    for (int i = 0; i < 3; i++) {
      String id = "a" + i;
      emit(id, registered(id, List.of(), 0, T0), notified("n" + i, T0));
      failWithDeadLetter(id, "n" + i, T0.plusSeconds(i));
    }
    assertEquals(
        List.of("a2", "a1"),
        readModel.deadLetters(null, 2).stream().map(DeadLetterRow::agentId).toList());
    assertEquals(1, readModel.deadLetters("a0", 10).size());
    assertEquals(List.of(), readModel.deadLetters("nobody", 10));
  }

  // ---- event builders ----

  private static AgentEvents.AgentRegistered registered(
      String agentId, List<String> capabilities, int priority, Instant at) {
    return new AgentEvents.AgentRegistered(
        new AgentConfig("name-" + agentId, capabilities, priority, 30, 100, 3, null), at);
  }

  private static Notification notification(String id, Instant at) {
    return new Notification(
        id, "mention", JsonNodeFactory.instance.objectNode().put("post", id), null, at, 0);
  }

  private static AgentEvents.NotificationReceived notified(String id, Instant at) {
    return new AgentEvents.NotificationReceived(notification(id, at));
  }

  private static Lease lease(
      String agentId, long token, ActivationKind kind, Instant at, List<String> carried) {
    return new Lease(
        Ids.leaseId(agentId, token),
        "runner-1",
        kind,
        token,
        1,
        at,
        at.plusSeconds(30),
        30,
        carried);
  }

  private static DeadLetter deadLetter(
      String agentId, String notificationId, int attempts, Instant at) {
    String reason = attempts > 0 ? "attempts exhausted: boom" : "cancel: no";
    return new DeadLetter(
        Ids.deadLetterId(agentId, notificationId),
        notification(notificationId, T0).withAttempts(attempts),
        reason,
        at);
  }

  private void failWithDeadLetter(String agentId, String notificationId, Instant at) {
    Lease lease =
        lease(agentId, seqNrs.get(agentId) + 1, ActivationKind.INBOX, at, List.of(notificationId));
    emit(
        agentId,
        new AgentEvents.LeaseGranted(lease),
        new AgentEvents.ActivationFailed(
            lease.leaseId(),
            FailureAction.DISCARD,
            "no",
            null,
            at,
            new InboxSummary(0, null),
            List.of(deadLetter(agentId, notificationId, 0, at))));
  }

  // ---- feeding events ----

  @Test
  void outboxCountsWhatTheAgentOwesUntilDeliveredAndQuietOwersAreFound() {
    emit("a1", registered("a1", List.of(), 0, T0), notified("n1", T0));
    Lease lease = lease("a1", 1, ActivationKind.INBOX, T0, List.of("n1"));
    Instant done = T0.plusSeconds(5);
    List<OutboxItem> sends =
        List.of(owed("s1-0", "b1", done), owed("s1-1", "b2", done), owed("s1-2", "b3", done));
    emit(
        "a1",
        new AgentEvents.LeaseGranted(lease),
        new AgentEvents.ActivationCompleted(
            lease.leaseId(), null, done, new InboxSummary(0, null), sends, List.of()));
    assertEquals(3, number("a1", "outbox"));
    assertEquals(List.of("a1"), readModel.agentsOwing(done.plusSeconds(1), 10));
    assertEquals(List.of(), readModel.agentsOwing(done, 10), "changed too recently");

    emit("a1", new AgentEvents.SendDelivered("s1-0", "b1", done.plusSeconds(1)));
    Notification dead = new Notification("x", "t", null, null, done, 0);
    emit(
        "a1",
        new AgentEvents.SendUndeliverable(
            "s1-1", "b2", "not_found", new DeadLetter("dl-1", dead, "gone", done), done),
        new AgentEvents.SendDelivered("s1-2", "b3", done.plusSeconds(2)));
    assertEquals(0, number("a1", "outbox"));
    assertEquals(1, number("a1", "dead_letters"));
    assertEquals(List.of(), readModel.agentsOwing(done.plusSeconds(60), 10));
  }

  @Test
  void aDeregisteredAgentThatStillOwesIsFoundUntilEveryItemIsSettled() {
    Instant done = completedWithSends("a1", "b1", "b2");
    Instant gone = done.plusSeconds(1);
    // Deleted with a call unread: the failed reply to its caller is owed too.
    emit("a1", new AgentEvents.AgentDeregistered(gone, List.of(owed("a-n9", "c1", gone))));
    assertNull(text("a1", "agent_id"), "the row goes with the agent");
    assertEquals(List.of("a1"), readModel.agentsOwing(gone.plusSeconds(1), 10));
    assertEquals(List.of(), readModel.agentsOwing(gone, 10), "changed too recently");

    emit(
        "a1",
        new AgentEvents.SendDelivered("s1-0", "b1", gone.plusSeconds(1)),
        new AgentEvents.SendUndeliverable("a-n9", "c1", "not_found", null, gone.plusSeconds(1)));
    assertEquals(List.of("a1"), readModel.agentsOwing(gone.plusSeconds(60), 10), "one left");
    emit("a1", new AgentEvents.SendDelivered("s1-1", "b2", gone.plusSeconds(2)));
    assertEquals(List.of(), readModel.agentsOwing(gone.plusSeconds(60), 10));
    assertEquals(0, owedAfterDelete());
  }

  @Test
  void anAgentRegisteredAgainTakesBackWhatItsOlderLifeOwes() {
    Instant done = completedWithSends("a1", "b1", "b2");
    Instant gone = done.plusSeconds(1);
    emit("a1", new AgentEvents.AgentDeregistered(gone, List.of()));
    emit("a1", registered("a1", List.of(), 0, gone.plusSeconds(1)));
    assertEquals(2, number("a1", "outbox"));
    assertEquals(0, owedAfterDelete());
    assertEquals(List.of("a1"), readModel.agentsOwing(gone.plusSeconds(60), 10), "found once");

    emit("a1", new AgentEvents.SendDelivered("s1-0", "b1", gone.plusSeconds(2)));
    emit("a1", new AgentEvents.SendDelivered("s1-1", "b2", gone.plusSeconds(2)));
    assertEquals(0, number("a1", "outbox"));
    assertEquals(List.of(), readModel.agentsOwing(gone.plusSeconds(60), 10));
  }

  @Test
  void aDeregisteredAgentThatOwesNothingLeavesNothingToSweep() {
    emit("a1", registered("a1", List.of(), 0, T0));
    emit("a1", new AgentEvents.AgentDeregistered(T0.plusSeconds(1), List.of()));
    assertEquals(0, owedAfterDelete());
    assertEquals(List.of(), readModel.agentsOwing(T0.plusSeconds(60), 10));
  }

  /** Registers the agent and completes a turn that sends to each target; when it completed. */
  private Instant completedWithSends(String agentId, String... targets) {
    emit(agentId, registered(agentId, List.of(), 0, T0), notified("n1", T0));
    Lease lease = lease(agentId, 1, ActivationKind.INBOX, T0, List.of("n1"));
    Instant done = T0.plusSeconds(5);
    List<OutboxItem> sends = new ArrayList<>();
    for (int i = 0; i < targets.length; i++) {
      sends.add(owed("s1-" + i, targets[i], done));
    }
    emit(
        agentId,
        new AgentEvents.LeaseGranted(lease),
        new AgentEvents.ActivationCompleted(
            lease.leaseId(), null, done, new InboxSummary(0, null), sends, List.of()));
    assertEquals(targets.length, number(agentId, "outbox"));
    return done;
  }

  private int owedAfterDelete() {
    try (Connection c = db().dataSource().getConnection();
        PreparedStatement s = c.prepareStatement("select count(*) from agent_outbox_after_delete");
        ResultSet rs = s.executeQuery()) {
      rs.next();
      return rs.getInt(1);
    } catch (SQLException e) {
      throw new AssertionError(e);
    }
  }

  private static OutboxItem owed(String sendId, String target, Instant at) {
    return new OutboxItem(sendId, target, "t", null, "k-" + sendId, null, null, null, null, at);
  }

  /** Applies the agent's next events in one transaction, numbering them after its last. */
  private List<Persisted> emit(String agentId, Event... events) {
    List<Persisted> envelopes = new ArrayList<>();
    for (Event event : events) {
      long seqNr = seqNrs.merge(agentId, 1L, Long::sum);
      envelopes.add(envelope(agentId, seqNr, event));
    }
    process(envelopes);
    return envelopes;
  }

  /** The agent's next event, numbered after its last, for a group built by hand. */
  private Persisted next(String agentId, Event event) {
    return envelope(agentId, seqNrs.merge(agentId, 1L, Long::sum), event);
  }

  /** An envelope with an old sequence number, as a re-delivery would bring it. */
  private List<Persisted> redeliverable(String agentId, long seqNr, Event event) {
    return List.of(envelope(agentId, seqNr, event));
  }

  private Persisted envelope(String agentId, long seqNr, Event event) {
    return new Persisted("Agent|" + agentId, seqNr, event);
  }

  /** Applies the events in one transaction, as the journal's writer does before its commit. */
  private void process(List<Persisted> envelopes) {
    try (Connection connection = db().dataSource().getConnection()) {
      connection.setAutoCommit(false);
      new ReadModelUpdate(PARTITIONS, () -> {}).apply(connection, envelopes, -1);
      connection.commit();
    } catch (SQLException e) {
      throw new AssertionError("writing the read model failed", e);
    }
  }

  // ---- row access ----

  private AgentSchedule schedule(String agentId) {
    return only(readModel.loadPartition(Partitions.of(agentId, PARTITIONS)), agentId).schedule();
  }

  private static ScheduleRow only(List<ScheduleRow> rows, String agentId) {
    return rows.stream()
        .filter(r -> r.schedule().agentId().equals(agentId))
        .findFirst()
        .orElseThrow(() -> new AssertionError("no row for " + agentId));
  }

  private boolean exists(String agentId) {
    return column(agentId, "agent_id", rs -> rs.getString(1)) != null;
  }

  private String text(String agentId, String column) {
    return column(agentId, column, rs -> rs.getString(1));
  }

  private long number(String agentId, String column) {
    Long value = column(agentId, column, rs -> rs.getLong(1));
    assertNotNull(value, column + " of " + agentId);
    return value;
  }

  private Instant instant(String agentId, String column) {
    return column(
        agentId,
        column,
        rs -> {
          OffsetDateTime value = rs.getObject(1, OffsetDateTime.class);
          return value == null ? null : value.toInstant();
        });
  }

  private interface Getter<T> {
    T get(ResultSet rs) throws SQLException;
  }

  private <T> T column(String agentId, String column, Getter<T> getter) {
    try (Connection c = db().dataSource().getConnection();
        PreparedStatement s =
            c.prepareStatement("select " + column + " from agent_schedule where agent_id = ?")) {
      s.setString(1, agentId);
      try (ResultSet rs = s.executeQuery()) {
        return rs.next() ? getter.get(rs) : null;
      }
    } catch (SQLException e) {
      throw new AssertionError(e);
    }
  }
}
