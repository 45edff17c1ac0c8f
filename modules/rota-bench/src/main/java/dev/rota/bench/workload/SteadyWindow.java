package dev.rota.bench.workload;

import dev.rota.bench.budget.BudgetProbe;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * Which parts of a backlog level count: nothing before the warm-up has passed (a JVM spends its
 * first seconds compiling), nothing while the backlog is being topped up, and the level ends once
 * the counted parts reach both the minimum time and the minimum activations, or at the cap. The
 * workload cuts the level into segments at those points and adds only the counted ones here, so
 * rates and CPU per activation come from the steady part alone.
 */
final class SteadyWindow {

  /**
   * @param warmup from the first claim, not counted
   * @param minDuration counted time needed
   * @param minActivations counted activations needed
   * @param cap from the first claim, the level ends here whatever was counted
   */
  record Goal(Duration warmup, Duration minDuration, long minActivations, Duration cap) {}

  /**
   * What the meters showed at one instant; CPU figures may be NaN where not measured, {@code
   * budget} is null unless the run measures a budget.
   */
  record Mark(
      long atMicros,
      long activations,
      long notifications,
      double cpuMillis,
      double runnerCpuMillis,
      double workerCpuMillis,
      double postgresCpuMillis,
      BudgetProbe.Reading budget) {

    Mark(
        long atMicros,
        long activations,
        long notifications,
        double cpuMillis,
        double runnerCpuMillis,
        double workerCpuMillis,
        double postgresCpuMillis) {
      this(
          atMicros,
          activations,
          notifications,
          cpuMillis,
          runnerCpuMillis,
          workerCpuMillis,
          postgresCpuMillis,
          null);
    }
  }

  /** One counted segment. */
  record Segment(Mark from, Mark to) {}

  private final long warmupEndMicros;
  private final long capMicros;
  private final long minMicros;
  private final long minActivations;
  private long micros;
  private long activations;
  private long notifications;
  private double cpuMillis;
  private double runnerCpuMillis;
  private double workerCpuMillis;
  private double postgresCpuMillis;
  private final List<Segment> counted = new ArrayList<>();

  SteadyWindow(Goal goal, long firstClaimMicros) {
    this.warmupEndMicros = firstClaimMicros + goal.warmup().toNanos() / 1000;
    this.capMicros = firstClaimMicros + goal.cap().toNanos() / 1000;
    this.minMicros = goal.minDuration().toNanos() / 1000;
    this.minActivations = goal.minActivations();
  }

  boolean warming(long nowMicros) {
    return nowMicros < warmupEndMicros;
  }

  long warmupEndMicros() {
    return warmupEndMicros;
  }

  long capMicros() {
    return capMicros;
  }

  /**
   * Counts the segment from {@code from} to {@code to} unless it began during the warm-up (the
   * workload ends a segment at the warm-up's end, so none straddles it).
   */
  void add(Mark from, Mark to) {
    if (!warming(from.atMicros())) {
      addAll(from, to);
    }
  }

  /** Counts the whole span from {@code from} to {@code to}, warm-up or not, as one segment. */
  void addAll(Mark from, Mark to) {
    counted.add(new Segment(from, to));
    micros += to.atMicros() - from.atMicros();
    activations += to.activations() - from.activations();
    notifications += to.notifications() - from.notifications();
    cpuMillis += to.cpuMillis() - from.cpuMillis();
    runnerCpuMillis += to.runnerCpuMillis() - from.runnerCpuMillis();
    workerCpuMillis += to.workerCpuMillis() - from.workerCpuMillis();
    postgresCpuMillis += to.postgresCpuMillis() - from.postgresCpuMillis();
  }

  /** Whether the counted parts plus a segment running since {@code from} reach the goal. */
  boolean reached(Mark from, long nowMicros, long activationsNow) {
    return !warming(from.atMicros())
        && micros + (nowMicros - from.atMicros()) >= minMicros
        && activations + (activationsNow - from.activations()) >= minActivations;
  }

  /** Whether the counted parts alone reach the goal. */
  boolean reached() {
    return micros >= minMicros && activations >= minActivations;
  }

  double seconds() {
    return micros / 1e6;
  }

  long activations() {
    return activations;
  }

  long notifications() {
    return notifications;
  }

  double cpuMillis() {
    return cpuMillis;
  }

  double runnerCpuMillis() {
    return runnerCpuMillis;
  }

  double workerCpuMillis() {
    return workerCpuMillis;
  }

  double postgresCpuMillis() {
    return postgresCpuMillis;
  }

  int segments() {
    return counted.size();
  }

  /** The counted segments, in the order they were added. */
  List<Segment> counted() {
    return List.copyOf(counted);
  }
}
