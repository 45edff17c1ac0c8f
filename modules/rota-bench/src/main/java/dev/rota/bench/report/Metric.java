package dev.rota.bench.report;

/**
 * One measured figure. {@code key} is the same for every system so that rows line up; {@code chart}
 * places it in the PNG ({@code throughput}, {@code latency}, {@code scaling} with {@code x} the
 * backlog size) or nowhere ({@code null}).
 */
public record Metric(
    String key, String label, double value, String unit, Better better, String chart, Double x) {

  /** Which direction is good, for reading ratios. */
  public enum Better {
    HIGHER,
    LOWER,
    NONE
  }

  public static Metric of(String key, String label, double value, String unit, Better better) {
    return new Metric(key, label, value, unit, better, null, null);
  }

  public Metric charted(String chart) {
    return new Metric(key, label, value, unit, better, chart, x);
  }

  public Metric at(double xValue) {
    return new Metric(key, label, value, unit, better, chart, xValue);
  }
}
