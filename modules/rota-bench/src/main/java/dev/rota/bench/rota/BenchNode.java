package dev.rota.bench.rota;

import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.typesafe.config.Config;
import com.typesafe.config.ConfigFactory;
import dev.rota.bench.system.AgentIds;
import dev.rota.bench.system.BenchDatabase;
import dev.rota.bench.system.InboxSeed;
import dev.rota.client.Notification;
import dev.rota.client.RotaClient;
import dev.rota.cluster.agent.AgentEntity;
import dev.rota.cluster.metrics.RotaMetrics;
import dev.rota.core.model.AgentConfigPatch;
import dev.rota.server.RotaConfig;
import dev.rota.server.RotaNode;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.function.Function;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.ActorSystem;
import org.apache.pekko.cluster.sharding.typed.javadsl.ClusterSharding;

/**
 * One in-process Rota node on a trial's database, with what both Rota systems need around it:
 * seeding through the agents themselves (every registration and notification acknowledged, i.e.
 * persisted, before a seed call returns), publishing over the producer HTTP API, and reading the
 * unread count from the read model.
 */
final class BenchNode implements AutoCloseable {

  /** The payload field carrying the harness's token. */
  static final String TOKEN = dev.rota.bench.system.BenchSystem.TOKEN_FIELD;

  /**
   * Events in flight while seeding: enough for the journal to batch its writes, few enough that no
   * write waits near the journal's circuit-breaker timeout.
   */
  private static final int SEED_WINDOW = 500;

  /** Notifications per {@code NotifyAll}: a hot agent's backlog goes in a few atomic writes. */
  private static final int SEED_CHUNK = 100;

  private static final ObjectNode EMPTY = JsonNodeFactory.instance.objectNode();
  static final Duration ASK_TIMEOUT = Duration.ofSeconds(60);
  private static final Duration READ_MODEL_TIMEOUT = Duration.ofMinutes(3);

  /** Large enough for burn-down's hottest agent; the API's maximum. */
  static final int MAX_INBOX_DEPTH = 100_000;

  private final RotaNode node;
  private final BenchDatabase database;
  private final Path dataDir;
  private final ClusterSharding sharding;
  private final URI apiBase;
  private final RotaClient client;
  private Connection readModel;

  private BenchNode(RotaNode node, BenchDatabase database, Path dataDir) {
    this.node = node;
    this.database = database;
    this.dataDir = dataDir;
    this.sharding = ClusterSharding.get(node.system());
    this.apiBase = URI.create("http://127.0.0.1:" + node.httpPort() + "/");
    this.client = RotaClient.builder(apiBase).retries(0).build();
  }

  /** Starts a node on {@code database}; {@code settings} override anything (runners, pools). */
  static BenchNode start(BenchDatabase database, Map<String, Object> settings) throws Exception {
    Path dataDir = Files.createTempDirectory("rota-bench-");
    Map<String, Object> config = new HashMap<>();
    config.put("rota.data-dir", dataDir.toString());
    config.put("rota.db.dialect", "postgres");
    config.put("rota.db.driver", "org.postgresql.Driver");
    config.put("rota.db.url", database.jdbcUrl());
    config.put("rota.db.user", database.user());
    config.put("rota.db.password", database.password());
    config.put(
        "pekko-persistence-jdbc.shared-databases.slick.profile", "slick.jdbc.PostgresProfile$");
    config.put("rota.http.port", 0);
    config.put("rota.http.interface", "127.0.0.1");
    config.put("rota.management.port", 0);
    config.put("rota.cluster.port", 0);
    config.put("rota.cluster.host", "127.0.0.1");
    config.putAll(settings);
    Config overrides = ConfigFactory.parseMap(config, "rota-bench");
    long startNanos = System.nanoTime();
    RotaNode node = RotaNode.startWith(RotaConfig.load(overrides));
    debug(String.format("node started in %.1f s", (System.nanoTime() - startNanos) / 1e9));
    BenchNode bench = new BenchNode(node, database, dataDir);
    bench.awaitCoordinators();
    return bench;
  }

  ActorSystem<?> system() {
    return node.system();
  }

  /** The node's own meters for the trial (a fresh node per trial, so they cover only it). */
  Map<String, Object> internals() {
    RotaMetrics metrics = RotaMetrics.get(node.system());
    Map<String, Object> internals = new LinkedHashMap<>();
    internals.put("claimP50Ms", round(metrics.claimMillis(0.5)));
    internals.put("claimP99Ms", round(metrics.claimMillis(0.99)));
    internals.put("journalWriteP50Ms", round(metrics.journalWriteMillis(0.5)));
    internals.put("journalWriteP99Ms", round(metrics.journalWriteMillis(0.99)));
    internals.put("journalCommits", metrics.journalCommits());
    internals.put("journalEventsPerCommit", round(metrics.journalEventsPerCommit()));
    return internals;
  }

  private static double round(double value) {
    return Math.round(value * 100) / 100.0;
  }

  int httpPort() {
    return node.httpPort();
  }

  /** Registers agents {@code 0..count-1} (every one with a deep inbox limit). */
  void registerAgents(int count) throws Exception {
    AgentConfigPatch patch =
        new AgentConfigPatch(null, null, null, null, MAX_INBOX_DEPTH, null, null);
    SeedWindow window = new SeedWindow(SEED_WINDOW);
    for (int i = 0; i < count; i++) {
      String id = AgentIds.id(i);
      window.submit(
          1,
          () ->
              ask(id, replyTo -> new AgentEntity.Register(patch, replyTo))
                  .thenAccept(reply -> expect(reply, AgentEntity.AgentDetails.class, id)));
    }
    window.await();
    debug("registered " + count + " agents");
    awaitReadModel("registered agents", "select count(*) from agent_schedule", count);
  }

  /**
   * Registers agents by key ({@code <tenant>/<id>} for a tenant's agent), each with a deep inbox.
   */
  void registerKeys(List<String> keys) throws Exception {
    AgentConfigPatch patch =
        new AgentConfigPatch(null, null, null, null, MAX_INBOX_DEPTH, null, null);
    SeedWindow window = new SeedWindow(SEED_WINDOW);
    for (String key : keys) {
      window.submit(
          1,
          () ->
              ask(key, replyTo -> new AgentEntity.Register(patch, replyTo))
                  .thenAccept(reply -> expect(reply, AgentEntity.AgentDetails.class, key)));
    }
    window.await();
    awaitReadModel("registered agents", "select count(*) from agent_schedule", keys.size());
  }

  /** One notification through the agent itself; completes with the agent's answer. */
  CompletionStage<AgentEntity.Reply> notifyAsync(String key, long token) {
    return ask(
        key,
        replyTo ->
            new AgentEntity.Notify(
                "bench", JsonNodeFactory.instance.objectNode().put(TOKEN, token), null, replyTo));
  }

  /**
   * Delivers the backlog through the agents, in atomic chunks; returns once all is persisted and
   * the read model shows it.
   */
  void seedNotifications(InboxSeed seed) throws Exception {
    deliverNotifications(seed);
    awaitReadModel(
        "unread notifications",
        "select coalesce(sum(unread), 0) from agent_schedule",
        seed.total());
  }

  /**
   * Delivers notifications through the agents, in atomic chunks; returns once all is persisted
   * (with runners working, the read model never shows a total to wait for).
   */
  void deliverNotifications(InboxSeed seed) throws Exception {
    int[] unread = seed.unreadPerAgent();
    SeedWindow window = new SeedWindow(SEED_WINDOW);
    // Round-robin over agents, a chunk each, so hot agents are fed from the start.
    int[] sent = new int[unread.length];
    boolean more = true;
    while (more) {
      more = false;
      for (int agent = 0; agent < unread.length; agent++) {
        int n = Math.min(SEED_CHUNK, unread[agent] - sent[agent]);
        if (n <= 0) {
          continue;
        }
        sent[agent] += n;
        more |= sent[agent] < unread[agent];
        String id = AgentIds.id(agent);
        List<AgentEntity.NotifyItem> items = new ArrayList<>(n);
        for (int k = 0; k < n; k++) {
          items.add(new AgentEntity.NotifyItem("bench.seed", EMPTY, null));
        }
        window.submit(
            n,
            () ->
                ask(id, replyTo -> new AgentEntity.NotifyAll(items, replyTo))
                    .thenAccept(reply -> expectAllAccepted(reply, id)));
      }
    }
    window.await();
    debug("delivered " + seed.total() + " notifications");
  }

  /** One notification over the producer API (the SDK's {@link RotaClient}); returns on its 202. */
  void publish(String agentId, long token) {
    client.notify(
        agentId, Notification.of("bench", JsonNodeFactory.instance.objectNode().put(TOKEN, token)));
  }

  /** The node's API root, {@code http://127.0.0.1:<port>/}. */
  URI apiBase() {
    return apiBase;
  }

  /** Unread notifications as the read model has them (written with the events). */
  synchronized long unread() throws SQLException {
    return queryLong("select coalesce(sum(unread), 0) from agent_schedule");
  }

  /** A counter of the read model summed over partitions, 0 when never counted. */
  synchronized long counter(String name) throws SQLException {
    return queryLong(
        "select coalesce(sum(total), 0) from rota_counter where name = '"
            + name.replace("'", "")
            + "'");
  }

  private long queryLong(String sql) throws SQLException {
    if (readModel == null || readModel.isClosed()) {
      readModel = database.connect();
    }
    try (Statement s = readModel.createStatement();
        ResultSet rs = s.executeQuery(sql)) {
      rs.next();
      return rs.getLong(1);
    }
  }

  private void awaitReadModel(String what, String sql, long expected) throws Exception {
    long deadline = System.nanoTime() + READ_MODEL_TIMEOUT.toNanos();
    long seen;
    synchronized (this) {
      seen = queryLong(sql);
    }
    while (seen != expected) {
      if (System.nanoTime() > deadline) {
        throw new IllegalStateException(
            "read model shows " + seen + " " + what + ", expected " + expected);
      }
      Thread.sleep(50);
      synchronized (this) {
        seen = queryLong(sql);
      }
    }
    debug("read model shows " + expected + " " + what);
  }

  private static final boolean DEBUG = Boolean.getBoolean("rota.bench.debug");
  private static final long T0 = System.nanoTime();

  static void debug(String message) {
    if (DEBUG) {
      System.err.printf("%8.3f rota-bench: %s%n", (System.nanoTime() - T0) / 1e9, message);
    }
  }

  /** Every partition's coordinator known and loaded, so the first claims see every agent. */
  private void awaitCoordinators() throws InterruptedException {
    // The dispatcher itself waits for the coordinator directory; nothing more to do here.
  }

  /**
   * Asks an agent. Through the Scala API on purpose: the Java API's CompletionStage runs every
   * callback asynchronously on the common pool, which on a two-core machine means a new thread per
   * callback; here the callback runs on the thread that completes the ask.
   */
  @SuppressWarnings("unchecked")
  private CompletionStage<AgentEntity.Reply> ask(
      String agentId, Function<ActorRef<AgentEntity.Reply>, AgentEntity.Command> command) {
    var ref =
        (org.apache.pekko.cluster.sharding.typed.scaladsl.EntityRef<AgentEntity.Command>)
            (Object) sharding.entityRefFor(AgentEntity.ENTITY_TYPE_KEY, agentId);
    scala.Function1<ActorRef<AgentEntity.Reply>, AgentEntity.Command> f = command::apply;
    scala.concurrent.Future<AgentEntity.Reply> future =
        ref.ask(f, org.apache.pekko.util.Timeout.create(ASK_TIMEOUT));
    CompletableFuture<AgentEntity.Reply> result = new CompletableFuture<>();
    future.onComplete(
        attempt -> {
          if (attempt.isSuccess()) {
            result.complete(attempt.get());
          } else {
            result.completeExceptionally(attempt.failed().get());
          }
          return null;
        },
        scala.concurrent.ExecutionContext.parasitic$.MODULE$);
    return result;
  }

  private static void expect(AgentEntity.Reply reply, Class<?> type, String agentId) {
    if (!type.isInstance(reply)) {
      throw new IllegalStateException("agent " + agentId + " answered " + reply);
    }
  }

  private static void expectAllAccepted(AgentEntity.Reply reply, String agentId) {
    expect(reply, AgentEntity.AcceptedAll.class, agentId);
    for (AgentEntity.Reply item : ((AgentEntity.AcceptedAll) reply).items()) {
      expect(item, AgentEntity.Accepted.class, agentId);
    }
  }

  @Override
  public void close() throws Exception {
    client.close();
    try {
      if (readModel != null) {
        readModel.close();
      }
    } finally {
      try {
        long stopNanos = System.nanoTime();
        node.close();
        debug(String.format("node stopped in %.1f s", (System.nanoTime() - stopNanos) / 1e9));
      } finally {
        deleteQuietly(dataDir);
      }
    }
  }

  private static void deleteQuietly(Path dir) {
    try (var paths = Files.walk(dir)) {
      paths.sorted(java.util.Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
    } catch (Exception ignored) {
      // a temporary directory; nothing of value is lost
    }
  }
}
