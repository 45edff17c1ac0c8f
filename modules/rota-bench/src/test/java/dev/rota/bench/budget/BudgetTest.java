package dev.rota.bench.budget;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.rota.bench.budget.JfrProfile.Profile;
import dev.rota.bench.budget.PgCounters.LevelCounters;
import dev.rota.bench.budget.PgCounters.StatementCounters;
import dev.rota.bench.budget.PgCounters.TableCounters;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The arithmetic from measurements to figures per activation, and the table that shows them. */
class BudgetTest {

  private static final String HTTP = "HTTP";
  private static final String JOURNAL = "journal writer (batches, commits)";

  /**
   * 2,000 activations; the process spent 1,000 CPU-ms, of which GC 150, JIT 40, VM 10 and JFR 0:
   * the Java threads' 800 ms are split 3:1 between HTTP and the journal writer by 300 and 100
   * samples.
   */
  private static Budget budget() {
    Map<String, Double> groups = new LinkedHashMap<>();
    groups.put(JvmThreads.GC, 150.0);
    groups.put(JvmThreads.JIT, 40.0);
    groups.put(JvmThreads.VM, 10.0);
    groups.put(JvmThreads.JFR, 0.0);
    Profile profile =
        new Profile(
            Map.of(HTTP, 300L, JOURNAL, 100L),
            Map.of(HTTP, 2_048_000.0, JOURNAL, 1_024_000.0),
            4,
            Map.of(),
            3,
            12.5);
    List<StatementCounters> statements =
        List.of(
            new StatementCounters(
                "update agent_schedule set x = $1", 4_000, 300.0, 4_000, 8_000, 10, 900_000),
            new StatementCounters("BEGIN", 1_000, 50.0, 0, 0, 0, 0));
    Map<String, TableCounters> tables = new LinkedHashMap<>();
    tables.put("agent_schedule", new TableCounters(0, 10_000, 7_500, 0, 4, 1));
    tables.put("event_journal", new TableCounters(6_000, 0, 0, 0, 2, 0));
    LevelCounters level = new LevelCounters(tables, 50_000, 20, 5_000_000, 2_500);
    return new Budget(
        "rota-http",
        20_000,
        24,
        10.0,
        2_000,
        1_000.0,
        250.0,
        groups,
        480.0,
        420.0,
        profile,
        statements,
        null,
        1_600_000,
        level,
        5_000,
        1_000,
        List.of());
  }

  @Test
  void apportionsTheJavaThreadsCpuBySamplesAfterTheGroupsMeasuredApart() {
    Budget b = budget();

    assertEquals(800.0, b.javaThreadsMillis(), 1e-9);
    assertEquals(0.75, b.sampleShare(HTTP), 1e-9);
    assertEquals(0.300, b.stageMillisPerActivation(HTTP), 1e-9);
    assertEquals(0.100, b.stageMillisPerActivation(JOURNAL), 1e-9);
    assertEquals(0.0, b.stageMillisPerActivation(StageRules.OTHER), 1e-9);
    assertEquals(0.075, b.groupMillisPerActivation(JvmThreads.GC), 1e-9);
    assertEquals(1.0, b.allocatedKbPerActivation(HTTP), 1e-9);
  }

  @Test
  void theStagesAndGroupsAddUpToTheProcessAndTheMachineAddsRunnersAndPostgres() {
    Budget b = budget();

    double stages =
        b.stageMillisPerActivation(HTTP)
            + b.stageMillisPerActivation(JOURNAL)
            + JvmThreads.ORDER.stream().mapToDouble(b::groupMillisPerActivation).sum();
    assertEquals(b.perActivation(b.processCpuMillis()), stages, 1e-9);
    assertEquals((1_000.0 + 480 + 420) / 2_000, b.machineMillisPerActivation(), 1e-9);
  }

  @Test
  void withoutExternalRunnersTheMachineIsTheJvmAndPostgres() {
    Budget b = budget();
    Budget inCluster =
        new Budget(
            "rota",
            b.level(),
            b.runners(),
            b.seconds(),
            b.activations(),
            b.processCpuMillis(),
            b.kernelMillis(),
            b.threadGroupMillis(),
            Double.NaN,
            b.postgresCpuMillis(),
            b.profile(),
            b.statements(),
            null,
            b.walBytes(),
            b.levelCounters(),
            b.levelActivations(),
            b.levelToppedUp(),
            List.of());

    assertEquals((1_000.0 + 420) / 2_000, inCluster.machineMillisPerActivation(), 1e-9);
  }

  @Test
  void theJavaThreadsNeverGoBelowZeroAndNothingCountedIsNotANumber() {
    Budget b = budget();
    Budget empty =
        new Budget(
            "rota",
            1,
            1,
            0,
            0,
            10.0,
            Double.NaN,
            Map.of(JvmThreads.GC, 25.0),
            Double.NaN,
            0,
            new Profile(Map.of(), Map.of(), 0, Map.of(), 0, 0),
            List.of(),
            null,
            0,
            null,
            0,
            0,
            List.of());

    assertEquals(0.0, empty.javaThreadsMillis());
    assertTrue(Double.isNaN(empty.perActivation(5)));
    assertTrue(Double.isNaN(empty.sampleShare(HTTP)));
    assertTrue(Double.isNaN(b.groupMillisPerActivation("no such group")));
  }

  @Test
  void postgresFiguresPerActivation() {
    Budget b = budget();
    StatementCounters all = b.statementTotals();
    TableCounters schedule = b.levelCounters().tables().get("agent_schedule");
    TableCounters journal = b.levelCounters().tables().get("event_journal");

    assertEquals(2.5, b.perActivation(all.calls()), 1e-9);
    assertEquals(0.175, b.perActivation(all.execMillis()), 1e-9);
    assertEquals(800.0, b.perActivation(b.walBytes()), 1e-9);
    assertEquals(0.75, Budget.hotShare(schedule), 1e-9);
    assertTrue(Double.isNaN(Budget.hotShare(journal)));
    assertEquals((10_000 - 7_500) * 4, Budget.indexEntries(schedule));
    assertEquals(6_000 * 2, Budget.indexEntries(journal));
    assertEquals(2.0, b.perLevelActivation(10_000), 1e-9);
  }

  @Test
  void theTableShowsOtherAndEveryStageThatHadSamples() {
    String md = BudgetTable.markdown(List.of(budget()), StageRules.standard());

    assertTrue(md.contains("| other | 0.000 | 0.0 % |"), md);
    assertTrue(md.contains("| HTTP | 0.300 | 75.0 % | 1.0 |"), md);
    assertTrue(md.contains("| " + JOURNAL + " | 0.100 | 25.0 % | 0.5 |"), md);
    assertFalse(md.contains("| sharding |"), "a stage without samples in any level is left out");
    assertTrue(md.contains("| **whole machine** | 0.950 |"), md);
    assertTrue(md.contains("| statements | 2.50 |"), md);
    assertTrue(md.contains("| transactions begun (BEGIN) | 0.50 |"), md);
    assertTrue(md.contains("| of which in the kernel (system time) | 0.125 |"), md);
    assertTrue(md.contains("400 execution samples (a share is known to ±2.5 points"), md);
    assertTrue(md.contains("| agent_schedule | 0.00 | 2.00 | 75.0 % | 0.00 | 4 (1) | 2.00 |"), md);
  }

  @Test
  void savepointsAreOneShapeWhateverTheirNames() {
    assertEquals("SAVEPOINT <name>", BudgetProbe.shape("SAVEPOINT JDBC_SAVEPOINT_693"));
    assertEquals(
        "RELEASE SAVEPOINT <name>", BudgetProbe.shape("RELEASE SAVEPOINT JDBC_SAVEPOINT_7"));
    assertEquals("ROLLBACK TO SAVEPOINT <name>", BudgetProbe.shape("ROLLBACK TO SAVEPOINT s1"));
    assertEquals("BEGIN", BudgetProbe.shape("BEGIN"));
    assertEquals(
        "update rota_counter set total = total + $1 where name = $2",
        BudgetProbe.shape("update rota_counter set total = total + $1 where name = $2"));
  }

  @Test
  void segmentsHoldTheirEndsAndNothingBetweenThem() {
    List<long[]> segments = List.of(new long[] {100, 200}, new long[] {300, 400});

    assertTrue(JfrProfile.inside(segments, 100));
    assertTrue(JfrProfile.inside(segments, 400));
    assertFalse(JfrProfile.inside(segments, 250));
    assertFalse(JfrProfile.inside(segments, 99));
    assertFalse(JfrProfile.inside(List.of(), 150));
  }

  @Test
  void threadGroupsByNameAndTheirGrowthBetweenTwoReads() {
    assertEquals(JvmThreads.GC, JvmThreads.groupOf("GC Thread#1"));
    assertEquals(JvmThreads.GC, JvmThreads.groupOf("G1 Conc#0"));
    assertEquals(JvmThreads.JIT, JvmThreads.groupOf("C2 CompilerThre"));
    assertEquals(JvmThreads.JFR, JvmThreads.groupOf("JFR Periodic Tasks"));
    assertNull(JvmThreads.groupOf("rota-journal-writer-1"));

    Map<String, Double> grown =
        JvmThreads.between(
            Map.of(
                "10", new JvmThreads.ThreadCpu(JvmThreads.GC, 100),
                "11", new JvmThreads.ThreadCpu(JvmThreads.JIT, 50)),
            Map.of(
                "10", new JvmThreads.ThreadCpu(JvmThreads.GC, 130),
                "11", new JvmThreads.ThreadCpu(JvmThreads.JIT, 50),
                "12", new JvmThreads.ThreadCpu(JvmThreads.JIT, 20)));

    assertEquals(30.0, grown.get(JvmThreads.GC), 1e-9);
    assertEquals(20.0, grown.get(JvmThreads.JIT), 1e-9, "a thread started in between from zero");
    assertEquals(0.0, grown.get(JvmThreads.VM), 1e-9);
  }
}
