package dev.rota.bench.workload;

import dev.rota.bench.budget.Budget;
import dev.rota.bench.budget.BudgetProbe;
import dev.rota.bench.budget.StageRules;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * A backlog level's budget when the run measures one ({@code --budget}), nothing otherwise: opens
 * the {@link BudgetProbe} on the trial's database and hands it the level's counted segments.
 */
final class BudgetLevel implements AutoCloseable {

  private final BudgetProbe probe;

  private BudgetLevel(BudgetProbe probe) {
    this.probe = probe;
  }

  static BudgetLevel open(Trials trials, Trials.Trial trial, String label) throws Exception {
    if (!trials.config().budget()) {
      return new BudgetLevel(null);
    }
    Path recording =
        trials
            .config()
            .resultsDir()
            .resolve("budget-" + trials.systemName() + "-" + label + ".jfr");
    return new BudgetLevel(BudgetProbe.open(trial.database(), recording));
  }

  /** Before the runners start. */
  void start() throws Exception {
    if (probe != null) {
      probe.startLevel();
    }
  }

  /** At a mark; null when no budget is measured. */
  BudgetProbe.Reading read() {
    return probe == null ? null : probe.read();
  }

  /** Once the runners stopped. */
  void end() throws Exception {
    if (probe != null) {
      probe.endLevel();
    }
  }

  /** The level's budget over what {@code counted} counted. */
  Optional<Budget> finish(
      String system,
      long level,
      int runners,
      SteadyWindow counted,
      long levelActivations,
      long levelToppedUp)
      throws Exception {
    if (probe == null) {
      return Optional.empty();
    }
    List<BudgetProbe.Span> spans = new ArrayList<>();
    for (SteadyWindow.Segment segment : counted.counted()) {
      spans.add(
          new BudgetProbe.Span(
              segment.from().atMicros(),
              segment.to().atMicros(),
              segment.from().budget(),
              segment.to().budget()));
    }
    BudgetProbe.Counted figures =
        new BudgetProbe.Counted(
            counted.seconds(),
            counted.activations(),
            counted.cpuMillis(),
            counted.runnerCpuMillis(),
            counted.postgresCpuMillis(),
            spans);
    return Optional.of(
        probe.finish(
            system,
            level,
            runners,
            figures,
            levelActivations,
            levelToppedUp,
            StageRules.standard()));
  }

  @Override
  public void close() throws Exception {
    if (probe != null) {
      probe.close();
    }
  }
}
