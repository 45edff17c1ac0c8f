package dev.rota.cluster.journal;

import static org.junit.jupiter.api.Assertions.assertEquals;

import com.typesafe.config.ConfigFactory;
import dev.rota.cluster.journal.RotaJournalContract.Append;
import dev.rota.cluster.journal.RotaJournalContract.Command;
import dev.rota.cluster.journal.RotaJournalContract.Log;
import dev.rota.cluster.testing.TestDatabase;
import java.sql.Connection;
import java.sql.Statement;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.apache.pekko.actor.testkit.typed.javadsl.ActorTestKit;
import org.apache.pekko.actor.testkit.typed.javadsl.LoggingTestKit;
import org.apache.pekko.actor.testkit.typed.javadsl.TestProbe;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.javadsl.AskPattern;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * A write that waited longer than {@code max-queue-wait} for a writer is failed without being
 * started: the journal's one writer is held on a table lock while a second write waits behind it,
 * and that write is refused and never committed, even after the lock is gone.
 */
class RotaJournalQueueWaitTest {
  private static final Duration ASK = Duration.ofSeconds(10);
  private static TestDatabase db;
  private static ActorTestKit testKit;

  @BeforeAll
  static void start() {
    db = TestDatabase.postgres();
    testKit =
        ActorTestKit.create(
            "RotaJournalQueueWaitTest",
            ConfigFactory.parseString(
                    String.join(
                        "\n",
                        "pekko.actor.provider = local",
                        "rota-journal.writers = 1",
                        "rota-journal.max-queue-wait = 500ms"))
                .withFallback(db.pekkoConfig())
                .withFallback(ConfigFactory.load()));
  }

  @AfterAll
  static void stop() {
    testKit.shutdownTestKit();
    db.close();
  }

  @Test
  void aWriteThatWaitedTooLongIsNotStarted() throws Exception {
    ActorRef<Command> first = testKit.spawn(new Log("held"));
    ActorRef<Command> late = testKit.spawn(new Log("late"));
    assertEquals(1, append(first, "warm-up").get(ASK.toSeconds(), TimeUnit.SECONDS));

    TestProbe<Integer> lateReply = testKit.createTestProbe();
    try (Connection lock = db.dataSource().getConnection()) {
      lock.setAutoCommit(false);
      try (Statement s = lock.createStatement()) {
        s.execute("lock table event_journal in exclusive mode");
      }
      LoggingTestKit.warn("were not started")
          .expect(
              testKit.system(),
              () -> {
                // The writer takes this one and waits on the lock (up to the session's lock
                // timeout, 1 s)...
                append(first, "blocked");
                sleep(100);
                // ...while this one waits in the queue past max-queue-wait. The lock goes
                // before it could time out a second write: one started then would commit.
                late.tell(new Append(List.of("too-late"), lateReply.ref()));
                sleep(1_400);
                return null;
              });
      lock.rollback();
    }
    // The refused write fails its entity, which stops without a reply (rather than waiting for
    // an ask to time out, the test watches it stop).
    lateReply.expectTerminated(late, ASK);
    lateReply.expectNoMessage(Duration.ofMillis(200));

    assertEquals(
        0, db.queryLong("select count(*) from event_journal where persistence_id = 'late'"));
    ActorRef<Command> again = testKit.spawn(new Log("late"));
    assertEquals(1, append(again, "in-time").get(ASK.toSeconds(), TimeUnit.SECONDS));
    assertEquals(
        1, db.queryLong("select count(*) from event_journal where persistence_id = 'late'"));
  }

  private static CompletableFuture<Integer> append(ActorRef<Command> ref, String value) {
    return AskPattern.<Command, Integer>ask(
            ref, replyTo -> new Append(List.of(value), replyTo), ASK, testKit.scheduler())
        .toCompletableFuture();
  }

  /** Holds a write in the queue for a set time: the queue wait is what the test measures. */
  private static void sleep(long millis) {
    try {
      Thread.sleep(millis);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }
}
