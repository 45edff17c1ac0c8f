package dev.rota.bench.budget;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.junit.jupiter.api.Test;

/** Stacks in, stages out: frames are {@code class.method}, leaf first, as JFR gives them. */
class StageRulesTest {

  private final StageRules rules = StageRules.standard();

  private static final String FORK_JOIN_ROOT = "java.util.concurrent.ForkJoinWorkerThread.run";
  private static final String MAILBOX = "org.apache.pekko.dispatch.Mailbox.run";

  @Test
  void placesTheReadModelsStatementsOnTheJournalWritersThreadAsReadModel() {
    List<String> stack =
        List.of(
            "org.postgresql.core.v3.QueryExecutorImpl.sendQuery",
            "org.postgresql.jdbc.PgPreparedStatement.executeBatch",
            "com.zaxxer.hikari.pool.HikariProxyPreparedStatement.executeBatch",
            "dev.rota.cluster.readmodel.AgentScheduleWriter.flush",
            "dev.rota.cluster.readmodel.JournalSink.write",
            "dev.rota.cluster.journal.BatchWriter.writeBatch",
            "dev.rota.cluster.journal.BatchWriter.writeLoop",
            "java.lang.Thread.run");

    assertEquals("read-model statements", rules.classify(stack));
  }

  @Test
  void separatesTheEventInsertsFromTheRestOfTheJournalWriter() {
    List<String> insert =
        List.of(
            "org.postgresql.jdbc.PgPreparedStatement.executeUpdate",
            "dev.rota.cluster.journal.EventInserts.insert",
            "dev.rota.cluster.journal.BatchWriter.writeBatch",
            "java.lang.Thread.run");
    List<String> commit =
        List.of(
            "org.postgresql.jdbc.PgConnection.commit",
            "dev.rota.cluster.journal.BatchWriter.writeBatch",
            "java.lang.Thread.run");

    assertEquals("journal: event inserts", rules.classify(insert));
    assertEquals("journal writer (batches, commits)", rules.classify(commit));
  }

  @Test
  void serializationWinsOverTheComponentThatSerializes() {
    List<String> stack =
        List.of(
            "com.fasterxml.jackson.dataformat.cbor.CBORGenerator.writeString",
            "com.fasterxml.jackson.databind.ObjectMapper.writeValueAsBytes",
            "org.apache.pekko.serialization.jackson.JacksonSerializer.toBinary",
            "dev.rota.cluster.journal.RotaJournal.asyncWriteMessages",
            "org.apache.pekko.persistence.journal.AsyncWriteJournal.receive",
            MAILBOX,
            FORK_JOIN_ROOT);

    assertEquals("serialization", rules.classify(stack));
  }

  @Test
  void jsonOutsideSerializationIsJsonAndTheRestOfARouteIsHttp() {
    List<String> json =
        List.of(
            "com.fasterxml.jackson.core.json.UTF8JsonGenerator.writeString",
            "dev.rota.cluster.assign.ActivationJson.render",
            "dev.rota.http.ClaimRoutes.claim",
            "org.apache.pekko.http.scaladsl.server.Directive.tapply",
            FORK_JOIN_ROOT);
    List<String> route =
        List.of(
            "java.util.HashMap.get",
            "dev.rota.cluster.Asks.ask",
            "dev.rota.http.ClaimRoutes.claim",
            "org.apache.pekko.http.scaladsl.server.Directive.tapply",
            FORK_JOIN_ROOT);
    List<String> parsing =
        List.of(
            "org.apache.pekko.http.impl.engine.parsing.HttpRequestParser.parseMessage",
            "org.apache.pekko.stream.impl.fusing.GraphInterpreter.execute",
            FORK_JOIN_ROOT);

    assertEquals("JSON", rules.classify(json));
    assertEquals("HTTP", rules.classify(route), "a helper at the cluster's root is not an owner");
    assertEquals("HTTP", rules.classify(parsing));
  }

  @Test
  void theOwnerIsTheRotaFrameNearestTheLeafNotCore() {
    List<String> coordinator =
        List.of(
            "dev.rota.core.scheduling.SchedulingIndex.update",
            "dev.rota.cluster.assign.Coordinator.onAgentChanged",
            "org.apache.pekko.actor.typed.internal.BehaviorImpl.receive",
            MAILBOX,
            FORK_JOIN_ROOT);
    List<String> dispatcher =
        List.of(
            "dev.rota.core.scheduling.HeadsBoard.best",
            "dev.rota.cluster.assign.Dispatcher.rank",
            MAILBOX,
            FORK_JOIN_ROOT);
    List<String> agent =
        List.of(
            "dev.rota.core.model.AgentState.apply",
            "dev.rota.cluster.agent.AgentBehavior.onEvent",
            "org.apache.pekko.persistence.typed.internal.Running.onCommand",
            MAILBOX,
            FORK_JOIN_ROOT);

    assertEquals("coordinators", rules.classify(coordinator));
    assertEquals("dispatcher", rules.classify(dispatcher));
    assertEquals("agents' handlers", rules.classify(agent));
  }

  @Test
  void librariesBeneathTakeWhatNoRotaFrameOwns() {
    List<String> persist =
        List.of(
            "org.apache.pekko.persistence.typed.internal.Running.persistingEvents",
            MAILBOX,
            FORK_JOIN_ROOT);
    List<String> sharding =
        List.of("org.apache.pekko.cluster.sharding.Shard.deliverMessage", MAILBOX, FORK_JOIN_ROOT);
    List<String> mailbox = List.of("org.apache.pekko.dispatch.Mailbox.processMailbox", MAILBOX);
    List<String> parked = List.of("java.util.concurrent.ForkJoinPool.awaitWork", FORK_JOIN_ROOT);

    assertEquals("persist cycle (Persistence Typed)", rules.classify(persist));
    assertEquals("sharding", rules.classify(sharding));
    assertEquals("actor runtime (mailboxes, scheduling)", rules.classify(mailbox));
    assertEquals("thread pools (queues, parking)", rules.classify(parked));
  }

  @Test
  void theBenchsExecutorIsTheBenchsEvenWhenARunnerCallsIt() {
    List<String> stack =
        List.of(
            "java.util.concurrent.ScheduledThreadPoolExecutor.schedule",
            "dev.rota.bench.rota.BenchExecutor.execute",
            "dev.rota.cluster.runner.Runner.onActivation",
            MAILBOX,
            FORK_JOIN_ROOT);

    assertEquals("bench (executor, load, counting)", rules.classify(stack));
  }

  @Test
  void aStackNoRulePlacesIsOtherAndOtherIsAlwaysAStage() {
    List<String> stack = List.of("java.lang.String.hashCode", "java.lang.Thread.run");

    assertEquals(StageRules.OTHER, rules.classify(stack));
    assertEquals(StageRules.OTHER, rules.classify(List.of()));
    List<String> stages = rules.stages();
    assertEquals(StageRules.OTHER, stages.get(stages.size() - 1));
    assertEquals(stages.size(), stages.stream().distinct().count(), "each stage once");
  }

  @Test
  void theFirstMatchingRuleDecides() {
    StageRules custom =
        new StageRules(
            List.of(
                StageRules.Rule.any("first", "a.b."),
                StageRules.Rule.any("second", "a."),
                StageRules.Rule.owner("owned", "dev.rota.x.")));

    assertEquals("first", custom.classify(List.of("a.c.M.m", "a.b.N.n")));
    assertEquals("second", custom.classify(List.of("a.c.M.m")));
    assertEquals("owned", custom.classify(List.of("dev.rota.core.Z.z", "dev.rota.x.Y.y")));
    assertEquals(
        StageRules.OTHER,
        custom.classify(List.of("dev.rota.y.Q.q", "dev.rota.x.Y.y")),
        "only the owner, the Rota frame nearest the leaf, counts for an owner rule");
    assertTrue(custom.stages().containsAll(List.of("first", "second", "owned", "other")));
  }
}
