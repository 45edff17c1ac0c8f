package dev.rota.bench.workload;

import dev.rota.bench.BenchConfig;
import dev.rota.bench.metrics.Progress;
import dev.rota.bench.postgres.BenchPostgres;
import dev.rota.bench.system.BenchDatabase;
import dev.rota.bench.system.BenchEnvironment;
import dev.rota.bench.system.BenchSystem;
import dev.rota.bench.system.BenchSystemProvider;
import dev.rota.bench.system.TrialShape;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * Opens trials of one system: each a fresh database on the bench's PostgreSQL and a fresh system
 * instance set up on it. Workloads use it and never see how systems are made.
 */
public final class Trials {

  private final BenchPostgres postgres;
  private final BenchSystemProvider provider;
  private final BenchEnvironment environment;
  private final BenchConfig config;
  private final Progress progress;
  private final List<Map<String, Object>> internals = new ArrayList<>();

  public Trials(
      BenchPostgres postgres,
      BenchSystemProvider provider,
      BenchEnvironment environment,
      BenchConfig config,
      Progress progress) {
    this.postgres = postgres;
    this.provider = provider;
    this.environment = environment;
    this.config = config;
    this.progress = progress;
  }

  public String systemName() {
    return provider.name();
  }

  public BenchConfig config() {
    return config;
  }

  public Progress progress() {
    return progress;
  }

  /**
   * CPU milliseconds the run's PostgreSQL has used so far, all its processes; NaN where it cannot
   * be read ({@link BenchPostgres#cpuMillis}).
   */
  public double postgresCpuMillis() {
    return postgres.cpuMillis();
  }

  /** A new system instance that is never set up: for asking what it supports. */
  public BenchSystem probe() {
    return provider.create(environment);
  }

  /** Creates the database, the system, and sets it up; the trial owns both from here. */
  public Trial open(TrialShape shape) throws Exception {
    String name =
        ("bench_" + provider.name() + "_" + shape.workload())
            .toLowerCase(Locale.ROOT)
            .replaceAll("[^a-z0-9_]", "_");
    BenchDatabase database =
        postgres.createDatabase(name.substring(0, Math.min(63, name.length())));
    BenchSystem system = null;
    try {
      system = provider.create(environment);
      system.setUp(database, shape);
      return new Trial(system, database, postgres, internals);
    } catch (Exception e) {
      if (system != null) {
        try {
          system.close();
        } catch (Exception suppressed) {
          e.addSuppressed(suppressed);
        }
      }
      postgres.dropDatabase(database);
      throw e;
    }
  }

  /**
   * A fresh database on the run's PostgreSQL without a system on it, for a workload that runs its
   * system itself (scale starts a node in its own JVM); drop it with {@link #dropDatabase}.
   */
  public BenchDatabase createDatabase(String workload) throws Exception {
    String name =
        ("bench_" + provider.name() + "_" + workload)
            .toLowerCase(Locale.ROOT)
            .replaceAll("[^a-z0-9_]", "_");
    return postgres.createDatabase(name.substring(0, Math.min(63, name.length())));
  }

  public void dropDatabase(BenchDatabase database) throws Exception {
    postgres.dropDatabase(database);
  }

  /** What the systems of the trials closed since the last call said of themselves; clears it. */
  public List<Map<String, Object>> takeInternals() {
    List<Map<String, Object>> taken = List.copyOf(internals);
    internals.clear();
    return taken;
  }

  /**
   * One system on one database; closing keeps the system's {@link BenchSystem#internals}, stops the
   * system and drops the database.
   */
  public static final class Trial implements AutoCloseable {
    private final BenchSystem system;
    private final BenchDatabase database;
    private final BenchPostgres postgres;
    private final List<Map<String, Object>> internals;

    Trial(
        BenchSystem system,
        BenchDatabase database,
        BenchPostgres postgres,
        List<Map<String, Object>> internals) {
      this.system = system;
      this.database = database;
      this.postgres = postgres;
      this.internals = internals;
    }

    public BenchSystem system() {
      return system;
    }

    public BenchDatabase database() {
      return database;
    }

    @Override
    public void close() throws Exception {
      try {
        Map<String, Object> own = system.internals();
        if (!own.isEmpty()) {
          internals.add(own);
        }
      } catch (RuntimeException e) {
        internals.add(Map.of("error", e.toString()));
      }
      try {
        system.close();
      } finally {
        postgres.dropDatabase(database);
      }
    }
  }
}
