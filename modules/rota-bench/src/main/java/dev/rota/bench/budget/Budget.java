package dev.rota.bench.budget;

import dev.rota.bench.budget.JfrProfile.Profile;
import dev.rota.bench.budget.PgCounters.LevelCounters;
import dev.rota.bench.budget.PgCounters.StatementCounters;
import dev.rota.bench.budget.PgCounters.TableCounters;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Where one backlog level's activations spent their CPU, and the arithmetic that turns the
 * measurements into figures per activation. Two scopes:
 *
 * <ul>
 *   <li><b>counted</b>: the level's counted segments only, as the bench's own CPU rows ({@code
 *       activations}, {@code seconds}, the process CPU, the thread groups, PostgreSQL's CPU, the
 *       samples, the statements and the WAL written);
 *   <li><b>level</b>: from the start of the runners to their end, warm-up and top-ups included
 *       ({@code level}, {@code levelActivations}, {@code levelToppedUp}): PostgreSQL's table and
 *       WAL counters, which cannot be split finer.
 * </ul>
 *
 * <p>The JVM's CPU is apportioned so: the thread groups that run no Java code ({@link JvmThreads})
 * are measured; the rest of the process's CPU is its Java threads', split among stages in the
 * proportions of their execution samples.
 *
 * @param kernelMillis the process's CPU in the kernel (system time; part of {@code
 *     processCpuMillis}, spread over the stages with the rest), NaN where not read
 * @param runnerCpuMillis the external runners' JVM (NaN where the runners run in the node's JVM)
 * @param threadGroupMillis CPU of each {@link JvmThreads} group; empty where it cannot be read
 * @param statements each statement shape's growth over the counted segments
 * @param walBytes WAL written over the counted segments (the insert position's growth)
 */
public record Budget(
    String system,
    long level,
    int runners,
    double seconds,
    long activations,
    double processCpuMillis,
    double kernelMillis,
    Map<String, Double> threadGroupMillis,
    double runnerCpuMillis,
    double postgresCpuMillis,
    Profile profile,
    List<StatementCounters> statements,
    String statementsUnavailable,
    long walBytes,
    LevelCounters levelCounters,
    long levelActivations,
    long levelToppedUp,
    List<String> notes) {

  /** The process's CPU less the groups measured apart: what its Java threads spent. */
  public double javaThreadsMillis() {
    double apart = threadGroupMillis.values().stream().mapToDouble(Double::doubleValue).sum();
    return Math.max(0, processCpuMillis - apart);
  }

  /** A stage's share of the counted execution samples, 0 to 1. */
  public double sampleShare(String stage) {
    long total = profile.totalSamples();
    return total == 0 ? Double.NaN : profile.samples().getOrDefault(stage, 0L) / (double) total;
  }

  /** CPU ms per activation of a stage: its share of the samples of the Java threads' CPU. */
  public double stageMillisPerActivation(String stage) {
    return perActivation(javaThreadsMillis() * sampleShare(stage));
  }

  /** Bytes allocated per activation by a stage (the allocation samples' weights), in KB. */
  public double allocatedKbPerActivation(String stage) {
    return perActivation(profile.allocatedBytes().getOrDefault(stage, 0.0) / 1024);
  }

  /** CPU ms per activation of a {@link JvmThreads} group; NaN where groups were not read. */
  public double groupMillisPerActivation(String group) {
    Double millis = threadGroupMillis.get(group);
    return millis == null ? Double.NaN : perActivation(millis);
  }

  /** The node's JVM, the external runners' JVM if any, and PostgreSQL, per activation. */
  public double machineMillisPerActivation() {
    double runnersPart = Double.isNaN(runnerCpuMillis) ? 0 : runnerCpuMillis;
    return perActivation(processCpuMillis + runnersPart + postgresCpuMillis);
  }

  /** A counted total divided by the counted activations; NaN when none was counted. */
  public double perActivation(double counted) {
    return activations > 0 ? counted / activations : Double.NaN;
  }

  /** A level total divided by all activations of the level. */
  public double perLevelActivation(double levelTotal) {
    return levelActivations > 0 ? levelTotal / levelActivations : Double.NaN;
  }

  /** Every statement's growth added up (calls, time, rows, WAL) over the counted segments. */
  public StatementCounters statementTotals() {
    StatementCounters total = new StatementCounters("all", 0, 0, 0, 0, 0, 0);
    for (StatementCounters s : statements) {
      total = total.plus(s);
    }
    return total;
  }

  /** Updates that were HOT (no index entries), 0 to 1; NaN for a table not updated. */
  public static double hotShare(TableCounters table) {
    return table.updated() == 0 ? Double.NaN : table.hotUpdated() / (double) table.updated();
  }

  /**
   * Index entries a table's writes added: one per index for each inserted row and each update that
   * was not HOT. An upper bound where an index is partial (its predicate may leave a row out).
   */
  public static long indexEntries(TableCounters table) {
    return (table.inserted() + table.updated() - table.hotUpdated()) * table.indexes();
  }

  /** The figures per activation for results.json: stages, groups and PostgreSQL's totals. */
  public Map<String, Object> summary(StageRules rules) {
    Map<String, Object> summary = new LinkedHashMap<>();
    summary.put("activations", activations);
    summary.put("seconds", seconds);
    summary.put("samples", profile.totalSamples());
    Map<String, Double> stages = new LinkedHashMap<>();
    for (String stage : rules.stages()) {
      if (profile.samples().containsKey(stage)) {
        stages.put(stage, stageMillisPerActivation(stage));
      }
    }
    summary.put("jvmStageMillisPerActivation", stages);
    Map<String, Double> groups = new LinkedHashMap<>();
    threadGroupMillis.forEach((group, millis) -> groups.put(group, perActivation(millis)));
    summary.put("jvmThreadGroupMillisPerActivation", groups);
    summary.put("jvmMillisPerActivation", perActivation(processCpuMillis));
    summary.put("postgresMillisPerActivation", perActivation(postgresCpuMillis));
    summary.put("machineMillisPerActivation", machineMillisPerActivation());
    StatementCounters all = statementTotals();
    summary.put("statementsPerActivation", perActivation(all.calls()));
    summary.put("walBytesPerActivation", perActivation(walBytes));
    return summary;
  }
}
