package dev.rota.cluster.metrics;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.pekko.actor.typed.ActorSystem;
import org.apache.pekko.actor.typed.Extension;
import org.apache.pekko.actor.typed.ExtensionId;

/**
 * The meters of the journal's storage and retention (decision 124), set by the node running the
 * journal's maintenance after each run (docs/operations.md): the journal's rows and bytes, the age
 * of its oldest event against the retention, rows and bytes the last run removed and their totals,
 * and the read model's dead tuples. Gauges are those of the last run on this node (aggregate with
 * {@code max}); a node that no longer runs the maintenance keeps showing its last values, so alerts
 * compare the oldest event's age with the retention, which stays right.
 */
public final class JournalMeters implements Extension {
  private final AtomicLong rows = new AtomicLong(-1);
  private final AtomicLong bytes = new AtomicLong(-1);
  private final AtomicLong oldestAgeSeconds = new AtomicLong(0);
  private final AtomicLong retentionSeconds = new AtomicLong(0);
  private final AtomicLong deadTuples = new AtomicLong(-1);
  private final AtomicLong lastRunRows = new AtomicLong(0);
  private final AtomicLong lastRunBytes = new AtomicLong(0);
  private final AtomicLong lastRunAt = new AtomicLong(0);
  private final Counter removedRows;
  private final Counter removedBytes;
  private final Counter failedRuns;

  private JournalMeters(MeterRegistry registry) {
    gauge(registry, "rota.journal.rows", "Events in the journal (PostgreSQL: estimate)", rows);
    gauge(registry, "rota.journal.bytes", "The journal's size on disk (PostgreSQL)", bytes);
    gauge(
        registry,
        "rota.journal.oldest.event.age.seconds",
        "Age of the journal's oldest event",
        oldestAgeSeconds);
    gauge(registry, "rota.journal.retention.seconds", "rota.journal.retention", retentionSeconds);
    gauge(
        registry,
        "rota.read.model.dead.tuples",
        "Dead tuples of the read model's tables, waiting for vacuum (PostgreSQL)",
        deadTuples);
    gauge(
        registry,
        "rota.journal.retention.last.run.removed.rows",
        "Events the last retention run removed",
        lastRunRows);
    gauge(
        registry,
        "rota.journal.retention.last.run.removed.bytes",
        "Bytes the last retention run removed",
        lastRunBytes);
    gauge(
        registry,
        "rota.journal.retention.last.run.timestamp.seconds",
        "When the last retention run ended (epoch seconds)",
        lastRunAt);
    this.removedRows =
        Counter.builder("rota.journal.retention.removed.rows")
            .description("Events removed by retention")
            .register(registry);
    this.removedBytes =
        Counter.builder("rota.journal.retention.removed.bytes")
            .description("Bytes removed by retention")
            .register(registry);
    this.failedRuns =
        Counter.builder("rota.journal.retention.failed.runs")
            .description("Retention runs that failed")
            .register(registry);
  }

  private static void gauge(MeterRegistry registry, String name, String help, AtomicLong value) {
    Gauge.builder(name, value, AtomicLong::get)
        .description(help)
        .strongReference(true)
        .register(registry);
  }

  public static JournalMeters get(ActorSystem<?> system) {
    return Id.INSTANCE.apply(system);
  }

  public void retention(Duration retention) {
    retentionSeconds.set(retention.toSeconds());
  }

  /** A run ended: what it removed, and the storage sampled after it (-1: unknown). */
  public void ran(
      long rowsRemoved,
      long bytesRemoved,
      long journalRows,
      long journalBytes,
      Duration oldestEventAge,
      long readModelDeadTuples,
      long endedEpochSeconds) {
    removedRows.increment(rowsRemoved);
    removedBytes.increment(bytesRemoved);
    lastRunRows.set(rowsRemoved);
    lastRunBytes.set(bytesRemoved);
    rows.set(journalRows);
    bytes.set(journalBytes);
    oldestAgeSeconds.set(oldestEventAge.toSeconds());
    deadTuples.set(readModelDeadTuples);
    lastRunAt.set(endedEpochSeconds);
  }

  public void runFailed() {
    failedRuns.increment();
  }

  private static final class Id extends ExtensionId<JournalMeters> {
    static final Id INSTANCE = new Id();

    @Override
    public JournalMeters createExtension(ActorSystem<?> system) {
      return new JournalMeters(RotaMetrics.get(system).registry());
    }
  }
}
