package dev.rota.cluster.journal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.typesafe.config.ConfigFactory;
import dev.rota.cluster.CborSerializable;
import dev.rota.cluster.testing.TestDatabase;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.stream.IntStream;
import org.apache.pekko.actor.testkit.typed.javadsl.ActorTestKit;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.Behavior;
import org.apache.pekko.actor.typed.javadsl.AskPattern;
import org.apache.pekko.persistence.typed.PersistenceId;
import org.apache.pekko.persistence.typed.javadsl.CommandHandler;
import org.apache.pekko.persistence.typed.javadsl.EventHandler;
import org.apache.pekko.persistence.typed.javadsl.EventSourcedBehavior;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;

/**
 * {@link RotaJournal} on a real database (subclasses pick H2 or PostgreSQL): many entities writing
 * at once, some several events in one write, end up with every event, its tag, orderings that
 * follow each entity's sequence numbers, and the same state after a replay; a write that conflicts
 * fails alone while the writes committed with it go through.
 */
abstract class RotaJournalContract {
  private static final Duration ASK = Duration.ofSeconds(10);

  /** An event of the test entity; tagged by the entity's parity. */
  record Appended(String value) implements CborSerializable {}

  sealed interface Command extends CborSerializable {}

  record Append(List<String> values, ActorRef<Integer> replyTo) implements Command {}

  record Get(ActorRef<List<String>> replyTo) implements Command {}

  /** Appends values; answers with how many it holds once they are journaled. */
  static final class Log extends EventSourcedBehavior<Command, Appended, List<String>> {
    private final String tag;

    Log(String id) {
      super(PersistenceId.ofUniqueId(id));
      this.tag = "t-" + (id.hashCode() & 1);
    }

    @Override
    public List<String> emptyState() {
      return new ArrayList<>();
    }

    @Override
    public CommandHandler<Command, Appended, List<String>> commandHandler() {
      return newCommandHandlerBuilder()
          .forAnyState()
          .onCommand(
              Append.class,
              (state, append) ->
                  Effect()
                      .persist(append.values().stream().map(Appended::new).toList())
                      .thenReply(append.replyTo(), List::size))
          .onCommand(Get.class, (state, get) -> Effect().reply(get.replyTo(), List.copyOf(state)))
          .build();
    }

    @Override
    public EventHandler<List<String>, Appended> eventHandler() {
      return newEventHandlerBuilder()
          .forAnyState()
          .onEvent(
              Appended.class,
              (state, event) -> {
                state.add(event.value());
                return state;
              })
          .build();
    }

    @Override
    public Set<String> tagsFor(Appended event) {
      return Set.of(tag);
    }
  }

  private static TestDatabase db;
  private static ActorTestKit testKit;

  static void start(TestDatabase database, String name) {
    db = database;
    testKit =
        ActorTestKit.create(
            name,
            ConfigFactory.parseString("pekko.actor.provider = local")
                .withFallback(db.pekkoConfig())
                .withFallback(ConfigFactory.load()));
  }

  @AfterAll
  static void stop() {
    testKit.shutdownTestKit();
    db.close();
  }

  private static ActorRef<Command> spawn(String id) {
    Behavior<Command> log = new Log(id);
    return testKit.spawn(log);
  }

  private static <T> T ask(
      ActorRef<Command> ref, java.util.function.Function<ActorRef<T>, Command> make)
      throws Exception {
    CompletionStage<T> answer = AskPattern.ask(ref, make::apply, ASK, testKit.scheduler());
    return answer.toCompletableFuture().get(ASK.toSeconds() + 5, TimeUnit.SECONDS);
  }

  @Test
  void concurrentWritesKeepEveryEventInOrderWithItsTag() throws Exception {
    List<String> ids = IntStream.range(0, 40).mapToObj(i -> "many-" + i).toList();
    List<ActorRef<Command>> refs = ids.stream().map(RotaJournalContract::spawn).toList();
    List<List<String>> expected = new ArrayList<>();
    ids.forEach(id -> expected.add(new ArrayList<>()));
    for (int round = 0; round < 10; round++) {
      List<CompletableFuture<Integer>> acks = new ArrayList<>();
      for (int i = 0; i < refs.size(); i++) {
        // One to three events per write: several events of one write share a transaction.
        int count = 1 + (i + round) % 3;
        List<String> values = new ArrayList<>();
        for (int k = 0; k < count; k++) {
          values.add(ids.get(i) + "/" + round + "/" + k);
        }
        expected.get(i).addAll(values);
        ActorRef<Command> ref = refs.get(i);
        acks.add(
            AskPattern.<Command, Integer>ask(
                    ref, replyTo -> new Append(values, replyTo), ASK, testKit.scheduler())
                .toCompletableFuture());
      }
      for (int i = 0; i < acks.size(); i++) {
        assertEquals(
            expected.get(i).size(), acks.get(i).get(ASK.toSeconds() + 5, TimeUnit.SECONDS));
      }
    }

    int total = expected.stream().mapToInt(List::size).sum();
    assertEquals(
        total,
        db.queryLong("select count(*) from event_journal where persistence_id like 'many-%'"));
    assertEquals(
        total,
        db.queryLong(
            "select count(*) from event_tag t join event_journal e on e.ordering = t.event_id"
                + " where e.persistence_id like 'many-%'"));
    for (String id : ids) {
      List<long[]> rows = sequenceAndOrdering(id);
      assertEquals(expected.get(ids.indexOf(id)).size(), rows.size(), id);
      for (int k = 0; k < rows.size(); k++) {
        assertEquals(k + 1, rows.get(k)[0], id + " sequence numbers are contiguous");
        if (k > 0) {
          assertTrue(rows.get(k)[1] > rows.get(k - 1)[1], id + " orderings follow sequence");
        }
      }
      String tag = "t-" + (id.hashCode() & 1);
      assertEquals(
          rows.size(),
          db.queryLong(
              "select count(*) from event_tag t join event_journal e on e.ordering = t.event_id"
                  + " where e.persistence_id = ? and t.tag = ?",
              id,
              tag));
    }

    // A fresh incarnation replays what was acknowledged, in order.
    refs.forEach(testKit::stop);
    for (int i = 0; i < ids.size(); i++) {
      ActorRef<Command> again = spawn(ids.get(i));
      List<String> replayed = ask(again, Get::new);
      assertEquals(expected.get(i), replayed);
    }
  }

  @Test
  void aConflictingWriteFailsAloneWhileOthersCommit() throws Exception {
    // Another writer takes sequence number 100 of "taken" after its entity recovered up to 99
    // (rows marked deleted, so there is nothing to replay): the entity's next write conflicts. The
    // others write at the same moment, many of them in the same transaction.
    insertDeletedRow("taken", 99, "earlier");
    ActorRef<Command> taken = spawn("taken");
    assertEquals(List.of(), ask(taken, Get::new), "recovered, with nothing to replay");
    insertDeletedRow("taken", 100, "elsewhere");
    List<ActorRef<Command>> others =
        IntStream.range(0, 30).mapToObj(i -> spawn("other-" + i)).toList();
    CompletableFuture<Integer> conflicting =
        AskPattern.<Command, Integer>ask(
                taken,
                replyTo -> new Append(List.of("mine"), replyTo),
                Duration.ofSeconds(3),
                testKit.scheduler())
            .toCompletableFuture();
    List<CompletableFuture<Integer>> fine = new ArrayList<>();
    for (ActorRef<Command> other : others) {
      fine.add(
          AskPattern.<Command, Integer>ask(
                  other, replyTo -> new Append(List.of("x"), replyTo), ASK, testKit.scheduler())
              .toCompletableFuture());
    }
    for (CompletableFuture<Integer> ack : fine) {
      assertEquals(1, ack.get(ASK.toSeconds() + 5, TimeUnit.SECONDS));
    }
    assertThrows(ExecutionException.class, () -> conflicting.get(10, TimeUnit.SECONDS));
    assertEquals(
        30, db.queryLong("select count(*) from event_journal where persistence_id like 'other-%'"));
    assertEquals(
        "elsewhere",
        writerOf("taken", 100),
        "the conflicting write left the other writer's event alone");
  }

  private static List<long[]> sequenceAndOrdering(String id) throws SQLException {
    List<long[]> rows = new ArrayList<>();
    try (Connection c = db.dataSource().getConnection();
        PreparedStatement s =
            c.prepareStatement(
                "select sequence_number, ordering from event_journal where persistence_id = ?"
                    + " order by sequence_number")) {
      s.setString(1, id);
      try (ResultSet rs = s.executeQuery()) {
        while (rs.next()) {
          rows.add(new long[] {rs.getLong(1), rs.getLong(2)});
        }
      }
    }
    return rows;
  }

  private static void insertDeletedRow(String id, long sequenceNr, String writer)
      throws SQLException {
    try (Connection c = db.dataSource().getConnection();
        PreparedStatement s =
            c.prepareStatement(
                "insert into event_journal (deleted, persistence_id, sequence_number, writer,"
                    + " write_timestamp, adapter_manifest, event_payload, event_ser_id,"
                    + " event_ser_manifest) values (true, ?, ?, ?, 0, '', ?, 1, '')")) {
      s.setString(1, id);
      s.setLong(2, sequenceNr);
      s.setString(3, writer);
      s.setBytes(4, new byte[] {0});
      s.executeUpdate();
    }
  }

  private static String writerOf(String id, long sequenceNr) throws SQLException {
    try (Connection c = db.dataSource().getConnection();
        PreparedStatement s =
            c.prepareStatement(
                "select writer from event_journal where persistence_id = ? and sequence_number = ?")) {
      s.setString(1, id);
      s.setLong(2, sequenceNr);
      try (ResultSet rs = s.executeQuery()) {
        rs.next();
        return rs.getString(1);
      }
    }
  }
}
