package dev.rota.bench.budget;

import dev.rota.bench.budget.PgCounters.LevelCounters;
import dev.rota.bench.budget.PgCounters.StatementCounters;
import dev.rota.bench.metrics.ProcessTreeCpu;
import dev.rota.bench.system.BenchDatabase;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;
import jdk.jfr.Recording;

/**
 * The budget's instruments around one backlog level ({@code --budget}): a JFR recording of this JVM
 * (the node's, which runs in the bench's JVM), the CPU of the JVM's threads that run no Java code,
 * and PostgreSQL's counters of the trial's database. The level calls {@link #startLevel} before its
 * runners start, {@link #read} at every mark, {@link #endLevel} once the runners stopped, and
 * {@link #finish} with the segments it counted.
 */
public final class BudgetProbe implements AutoCloseable {

  /**
   * How long to wait before reading the counters PostgreSQL's backends report at most once a
   * second, so that everything before the read is in it.
   */
  private static final long REPORT_PAUSE_MILLIS = 1_500;

  /**
   * The instruments at one mark; {@code postgres} is null where it could not be read, {@code
   * systemMillis} (the process's CPU in the kernel) NaN.
   */
  public record Reading(
      PgCounters.Snapshot postgres,
      Map<String, JvmThreads.ThreadCpu> threads,
      double systemMillis) {}

  /** One counted segment, with the readings at its two ends. */
  public record Span(long fromMicros, long toMicros, Reading from, Reading to) {}

  /**
   * What the level counted, as the bench's own rows count it.
   *
   * @param runnerCpuMillis NaN where the runners run in this JVM
   */
  public record Counted(
      double seconds,
      long activations,
      double processCpuMillis,
      double runnerCpuMillis,
      double postgresCpuMillis,
      List<Span> spans) {}

  private final PgCounters postgres;
  private final JvmThreads threads = new JvmThreads();
  private final Path recordingFile;
  private final List<String> notes = new ArrayList<>();
  private Recording recording;
  private LevelCounters levelStart;
  private LevelCounters levelEnd;

  private BudgetProbe(PgCounters postgres, Path recordingFile) {
    this.postgres = postgres;
    this.recordingFile = recordingFile;
  }

  /** Connects to the trial's database; the recording will be written to {@code recordingFile}. */
  public static BudgetProbe open(BenchDatabase database, Path recordingFile) throws SQLException {
    return new BudgetProbe(PgCounters.open(database), recordingFile);
  }

  /** After seeding, before the runners start: the level's counters, then the recording. */
  public void startLevel() throws Exception {
    Thread.sleep(REPORT_PAUSE_MILLIS);
    levelStart = postgres.level();
    recording = JfrProfile.start();
  }

  /** At every mark of the level. */
  public Reading read() {
    PgCounters.Snapshot snapshot = null;
    try {
      snapshot = postgres.snapshot();
    } catch (SQLException e) {
      note("a PostgreSQL reading failed, its segment left out of statements and WAL: " + e);
    }
    long[] times = ProcessTreeCpu.stat(ProcessHandle.current().pid());
    double systemMillis =
        times == null ? Double.NaN : times[1] * 1000.0 / ProcessTreeCpu.ticksPerSecond();
    return new Reading(snapshot, threads.read(), systemMillis);
  }

  /** Once the runners stopped: the recording to its file, then the level's counters. */
  public void endLevel() throws Exception {
    if (recording != null) {
      recording.stop();
      Files.createDirectories(recordingFile.toAbsolutePath().getParent());
      recording.dump(recordingFile);
      recording.close();
      recording = null;
    }
    Thread.sleep(REPORT_PAUSE_MILLIS);
    levelEnd = postgres.level();
  }

  /** The level's budget from the segments it counted. */
  public Budget finish(
      String system,
      long level,
      int runners,
      Counted counted,
      long levelActivations,
      long levelToppedUp,
      StageRules rules)
      throws Exception {
    List<long[]> segments = new ArrayList<>();
    Map<String, Double> groups = JvmThreads.available() ? zeroGroups() : new LinkedHashMap<>();
    Map<String, StatementCounters> statements = new HashMap<>();
    long walBytes = 0;
    double systemMillis = 0;
    for (Span span : counted.spans()) {
      systemMillis += span.to().systemMillis() - span.from().systemMillis();
      segments.add(new long[] {span.fromMicros(), span.toMicros()});
      if (!groups.isEmpty()) {
        JvmThreads.between(span.from().threads(), span.to().threads())
            .forEach((group, millis) -> groups.merge(group, millis, Double::sum));
      }
      if (span.from().postgres() == null || span.to().postgres() == null) {
        continue;
      }
      walBytes += span.to().postgres().walPosition() - span.from().postgres().walPosition();
      Map<String, StatementCounters> before = span.from().postgres().statements();
      span.to()
          .postgres()
          .statements()
          .forEach(
              (id, now) -> {
                StatementCounters grown = now.minus(before.get(id));
                if (grown.calls() > 0) {
                  String shape = shape(grown.query());
                  statements.merge(shape, grown.named(shape), StatementCounters::plus);
                }
              });
    }
    JfrProfile.Profile profile = JfrProfile.read(recordingFile, segments, rules);
    if (JfrProfile.stackDepthProblem() != null) {
      note("stacks of at most JFR's default depth: " + JfrProfile.stackDepthProblem());
    }
    if (!JvmThreads.available()) {
      note("no /proc/self/task: GC, JIT and VM threads are not measured apart");
    }
    List<StatementCounters> byTime = new ArrayList<>(statements.values());
    byTime.sort(Comparator.comparingDouble(StatementCounters::execMillis).reversed());
    LevelCounters levelCounters =
        levelStart != null && levelEnd != null ? levelEnd.minus(levelStart) : null;
    return new Budget(
        system,
        level,
        runners,
        counted.seconds(),
        counted.activations(),
        counted.processCpuMillis(),
        systemMillis,
        groups,
        counted.runnerCpuMillis(),
        counted.postgresCpuMillis(),
        profile,
        byTime,
        postgres.statementsUnavailable(),
        walBytes,
        levelCounters,
        levelActivations,
        levelToppedUp,
        List.copyOf(notes));
  }

  /**
   * A statement's shape: its normalized text, savepoint names replaced (each savepoint a name of
   * its own would otherwise be a shape of its own).
   */
  static String shape(String query) {
    return SAVEPOINT.matcher(query.strip()).replaceAll("$1 <name>");
  }

  private static final Pattern SAVEPOINT =
      Pattern.compile(
          "^(SAVEPOINT|RELEASE(?: SAVEPOINT)?|ROLLBACK TO(?: SAVEPOINT)?)\\s+\\S+$",
          Pattern.CASE_INSENSITIVE);

  private static Map<String, Double> zeroGroups() {
    Map<String, Double> groups = new LinkedHashMap<>();
    for (String group : JvmThreads.ORDER) {
      groups.put(group, 0.0);
    }
    return groups;
  }

  private void note(String note) {
    if (!notes.contains(note)) {
      notes.add(note);
    }
  }

  @Override
  public void close() throws Exception {
    try {
      if (recording != null) {
        recording.close();
      }
    } finally {
      postgres.close();
    }
  }
}
