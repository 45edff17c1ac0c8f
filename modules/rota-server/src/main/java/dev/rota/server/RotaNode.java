package dev.rota.server;

import com.typesafe.config.Config;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import javax.sql.DataSource;
import org.apache.pekko.actor.Address;
import org.apache.pekko.actor.typed.ActorSystem;

/**
 * One running Rota node: its configuration, database, actor system and bound endpoints. {@link
 * Main} starts one per process; tests start one or several in-process with overrides such as {@code
 * rota.http.port = 0} for free ports.
 *
 * <p>Start-up order: load config, open the database and run migrations, then start the actor
 * system, whose {@link Guardian} joins the cluster and binds management and HTTP. {@link #start}
 * returns once both are bound and the node serves (an Up member with its shard regions registered),
 * or a minute after binding if it cannot join yet; until it serves, the API answers 503 with {@code
 * Retry-After} (decision 17).
 */
public final class RotaNode implements AutoCloseable {
  private static final Duration STARTUP_TIMEOUT = Duration.ofSeconds(60);
  private static final Duration SHUTDOWN_TIMEOUT = Duration.ofSeconds(60);

  private final Config config;
  private final RotaSettings settings;
  private final Database database;
  private final ActorSystem<Guardian.Command> system;
  private final Guardian.Endpoints endpoints;

  private RotaNode(
      Config config,
      RotaSettings settings,
      Database database,
      ActorSystem<Guardian.Command> system,
      Guardian.Endpoints endpoints) {
    this.config = config;
    this.settings = settings;
    this.database = database;
    this.system = system;
    this.endpoints = endpoints;
  }

  /**
   * Starts a node whose configuration is {@code overrides} on top of the usual sources ({@link
   * RotaConfig#load(Config)}).
   *
   * @throws StartupException with a one-line reason if the node cannot start; whatever was started
   *     is stopped again
   */
  public static RotaNode start(Config overrides) {
    return startWith(RotaConfig.load(overrides));
  }

  /** Fixed for the life of a database: read-model rows and counters are keyed by partition. */
  private static final String PARTITIONS = "rota.partitions";

  /** Starts a node with an already loaded configuration (see {@link RotaConfig}). */
  public static RotaNode startWith(Config config) {
    RotaSettings settings = RotaSettings.from(config);
    requireSafeExposure(config, settings);
    Database database = Database.open(settings.db());
    ActorSystem<Guardian.Command> system = null;
    try {
      database.migrate();
      database.requireSetting(PARTITIONS, String.valueOf(config.getInt(PARTITIONS)));
      CompletableFuture<Guardian.Endpoints> started = new CompletableFuture<>();
      system =
          ActorSystem.create(
              Guardian.create(settings, database, started), RotaConfig.SYSTEM_NAME, config);
      Guardian.Endpoints endpoints = await(started);
      awaitServing(system, STARTUP_TIMEOUT);
      return new RotaNode(config, settings, database, system, endpoints);
    } catch (RuntimeException e) {
      if (system != null) {
        system.terminate();
        awaitTermination(system);
      }
      database.close();
      throw e instanceof StartupException
          ? e
          : new StartupException("node failed to start: " + Failures.firstLine(e), e);
    }
  }

  /**
   * Tokens that cannot be read (or carry a setting this node does not know), tenants that cannot be
   * read, or an open API on a reachable interface, stop the start.
   */
  private static void requireSafeExposure(Config config, RotaSettings settings) {
    try {
      dev.rota.http.HttpSettings.from(config).requireSafeExposure(settings.http().interfaceName());
      dev.rota.cluster.tenant.TenantTables.fromConfig(config);
    } catch (com.typesafe.config.ConfigException | IllegalStateException e) {
      throw new StartupException(e.getMessage(), e);
    }
  }

  /**
   * Waits, at most {@code timeout}, until the node serves its API ({@link
   * NodeReadiness#clusterServing()}: an Up member with its shard regions registered), so that a
   * caller's first request is not answered 503. Returns either way: a node whose seed nodes are not
   * up yet keeps trying to join (up to {@code ROTA_JOIN_TIMEOUT}) and answers 503 meanwhile.
   */
  private static void awaitServing(ActorSystem<?> system, Duration timeout) {
    NodeReadiness readiness = NodeReadiness.get(system);
    long deadline = System.nanoTime() + timeout.toNanos();
    while (!readiness.clusterServing() && System.nanoTime() < deadline) {
      try {
        Thread.sleep(20);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return;
      }
    }
  }

  private static Guardian.Endpoints await(CompletableFuture<Guardian.Endpoints> started) {
    try {
      return started.get(STARTUP_TIMEOUT.toSeconds(), TimeUnit.SECONDS);
    } catch (ExecutionException e) {
      Throwable cause = Failures.unwrap(e);
      if (cause instanceof RuntimeException runtime) {
        throw runtime;
      }
      throw new StartupException(Failures.firstLine(cause), cause);
    } catch (TimeoutException e) {
      throw new StartupException(
          "HTTP API and management were not bound within " + STARTUP_TIMEOUT.toSeconds() + " s");
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new StartupException("interrupted while starting", e);
    }
  }

  public ActorSystem<?> system() {
    return system;
  }

  /** The loaded configuration, overrides and derived values included. */
  public Config config() {
    return config;
  }

  public RotaSettings settings() {
    return settings;
  }

  /** The node's pool; closed when the node stops. */
  public DataSource dataSource() {
    return database.dataSource();
  }

  public Database database() {
    return database;
  }

  /** The port the HTTP API is bound to (the real one when configured as 0). */
  public int httpPort() {
    return endpoints.http().localAddress().getPort();
  }

  /** The port Pekko Management is bound to (the real one when configured as 0). */
  public int managementPort() {
    return endpoints.management().port();
  }

  /** This node's cluster address. */
  public Address clusterAddress() {
    return endpoints.cluster();
  }

  /**
   * Leaves the cluster and stops through CoordinatedShutdown (HTTP unbinds, the database closes
   * last), waiting until the actor system has terminated.
   */
  public void stop() {
    system.terminate();
    awaitTermination(system);
  }

  @Override
  public void close() {
    stop();
  }

  private static void awaitTermination(ActorSystem<?> system) {
    try {
      system
          .getWhenTerminated()
          .toCompletableFuture()
          .get(SHUTDOWN_TIMEOUT.toSeconds(), TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    } catch (ExecutionException | TimeoutException e) {
      throw new IllegalStateException("actor system did not terminate in time", e);
    }
  }
}
