package dev.rota.bench.report;

import dev.rota.bench.seedsql.SeedSqlProvider;
import dev.rota.bench.system.SystemCatalog;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;

/**
 * The results as rows of figures (one per metric) by system, plus ratio columns against a
 * reference: Rota when it ran ({@code rota ÷ other}: above 1 means Rota is ahead on a
 * higher-is-better row), otherwise the seed SQL baseline ({@code other ÷ seed-sql}).
 */
public final class ComparisonTable {

  /** One metric across systems; a system without the figure shows its workload's status. */
  public record Row(
      String workload,
      String label,
      String unit,
      Metric.Better better,
      Map<String, Double> values,
      Map<String, String> missing) {

    public String cell(String system) {
      Double value = values.get(system);
      return value != null ? formatNumber(value) : missing.getOrDefault(system, "–");
    }
  }

  /** A ratio column: {@code numerator ÷ denominator}. */
  public record RatioColumn(String numerator, String denominator) {
    public String header() {
      return numerator + " ÷ " + denominator;
    }
  }

  private final List<String> systems;
  private final List<Row> rows;
  private final List<RatioColumn> ratios;

  private ComparisonTable(List<String> systems, List<Row> rows, List<RatioColumn> ratios) {
    this.systems = systems;
    this.rows = rows;
    this.ratios = ratios;
  }

  public static ComparisonTable of(BenchResults results) {
    List<String> systems = new ArrayList<>();
    Map<String, Row> rows = new LinkedHashMap<>();
    for (SystemResult system : results.systems()) {
      systems.add(system.system());
    }
    for (SystemResult system : results.systems()) {
      for (WorkloadResult workload : system.workloads()) {
        for (Metric metric : workload.metrics()) {
          rows.computeIfAbsent(
                  metric.key(),
                  k ->
                      new Row(
                          workload.workload(),
                          metric.label(),
                          metric.unit(),
                          metric.better(),
                          new LinkedHashMap<>(),
                          new LinkedHashMap<>()))
              .values()
              .put(system.system(), metric.value());
        }
      }
    }
    for (Row row : rows.values()) {
      for (SystemResult system : results.systems()) {
        if (!row.values().containsKey(system.system())) {
          row.missing().put(system.system(), statusOf(system, row.workload()));
        }
      }
    }
    return new ComparisonTable(systems, byWorkload(rows.values()), ratioColumns(results));
  }

  /**
   * Rows grouped by workload in the order workloads first appear, so that a figure only a later
   * system reports (the runners' CPU of {@code rota-http}) sits with its workload's other rows.
   */
  private static List<Row> byWorkload(java.util.Collection<Row> rows) {
    Map<String, List<Row>> groups = new LinkedHashMap<>();
    for (Row row : rows) {
      groups.computeIfAbsent(row.workload(), w -> new ArrayList<>()).add(row);
    }
    return groups.values().stream().flatMap(List::stream).toList();
  }

  private static String statusOf(SystemResult system, String workload) {
    if (system.status() != Status.OK) {
      return system.status().label();
    }
    return system.workloads().stream()
        .filter(w -> w.workload().equals(workload))
        // A workload that ran but has no such figure for this system (CPU measured only where the
        // system runs in a JVM the bench can see): not applicable, not "ok".
        .map(w -> (w.status() == Status.OK ? Status.NOT_APPLICABLE : w.status()).label())
        .findFirst()
        .orElse("–");
  }

  private static List<RatioColumn> ratioColumns(BenchResults results) {
    Optional<String> rota =
        List.of(SystemCatalog.ROTA, SystemCatalog.ROTA_HTTP).stream()
            .filter(name -> results.system(name).map(s -> s.status() == Status.OK).orElse(false))
            .findFirst();
    List<RatioColumn> columns = new ArrayList<>();
    if (rota.isPresent()) {
      for (SystemResult other : results.systems()) {
        if (other.status() == Status.OK && !other.system().equals(rota.get())) {
          columns.add(new RatioColumn(rota.get(), other.system()));
        }
      }
      return columns;
    }
    boolean baselineRan =
        results.system(SeedSqlProvider.NAME).map(s -> s.status() == Status.OK).orElse(false);
    if (baselineRan) {
      for (SystemResult other : results.systems()) {
        if (other.status() == Status.OK && !other.system().equals(SeedSqlProvider.NAME)) {
          columns.add(new RatioColumn(other.system(), SeedSqlProvider.NAME));
        }
      }
    }
    return columns;
  }

  public List<String> systems() {
    return systems;
  }

  public List<Row> rows() {
    return rows;
  }

  public List<RatioColumn> ratios() {
    return ratios;
  }

  public String ratioCell(Row row, RatioColumn column) {
    Double a = row.values().get(column.numerator());
    Double b = row.values().get(column.denominator());
    if (a == null || b == null || row.better() == Metric.Better.NONE) {
      return "";
    }
    if (b == 0) {
      return a == 0 ? "1.00×" : "∞";
    }
    double ratio = a / b;
    return ratio >= 0.1
        ? String.format(Locale.ROOT, "%.2f×", ratio)
        : String.format(Locale.ROOT, "%.3f×", ratio);
  }

  public static String rowLabel(Row row) {
    String arrow =
        switch (row.better()) {
          case HIGHER -> " ↑";
          case LOWER -> " ↓";
          case NONE -> "";
        };
    // "activations/s" already says its unit; "worst staleness" needs "(s)".
    boolean unitInLabel = row.unit().isEmpty() || row.label().endsWith(row.unit());
    return row.label() + (unitInLabel ? "" : " (" + row.unit() + ")") + arrow;
  }

  public static String formatNumber(double value) {
    double abs = Math.abs(value);
    if (abs >= 1000) {
      return String.format(Locale.ROOT, "%,.0f", value);
    }
    if (abs >= 100) {
      return String.format(Locale.ROOT, "%.0f", value);
    }
    if (abs >= 10) {
      return String.format(Locale.ROOT, "%.1f", value);
    }
    return String.format(Locale.ROOT, "%.2f", value);
  }
}
