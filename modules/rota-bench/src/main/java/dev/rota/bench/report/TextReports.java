package dev.rota.bench.report;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/** The comparison as a console table and as Markdown (results.md). */
public final class TextReports {

  private TextReports() {}

  public static String console(BenchResults results) {
    ComparisonTable table = ComparisonTable.of(results);
    List<List<String>> grid = new ArrayList<>();
    grid.add(header(table));
    String workload = null;
    for (ComparisonTable.Row row : table.rows()) {
      List<String> line = new ArrayList<>();
      line.add(row.workload().equals(workload) ? "" : row.workload());
      workload = row.workload();
      line.addAll(cells(table, row));
      grid.add(line);
    }
    int[] widths = new int[grid.get(0).size()];
    for (List<String> line : grid) {
      for (int i = 0; i < line.size(); i++) {
        widths[i] = Math.max(widths[i], line.get(i).length());
      }
    }
    StringBuilder out = new StringBuilder();
    for (int r = 0; r < grid.size(); r++) {
      List<String> line = grid.get(r);
      for (int i = 0; i < line.size(); i++) {
        String cell = line.get(i);
        boolean left = i < 2;
        String pad = " ".repeat(widths[i] - cell.length());
        out.append(left ? cell + pad : pad + cell).append(i + 1 < line.size() ? "  " : "");
      }
      out.append('\n');
      if (r == 0) {
        int total = 0;
        for (int w : widths) {
          total += w + 2;
        }
        out.append("-".repeat(Math.max(0, total - 2))).append('\n');
      }
    }
    out.append(statusLines(results));
    return out.toString();
  }

  public static String markdown(BenchResults results) {
    ComparisonTable table = ComparisonTable.of(results);
    StringBuilder md = new StringBuilder("# Rota benchmark results\n\n");
    md.append("Started ").append(results.startedAt());
    md.append(String.format(java.util.Locale.ROOT, ", took %.0f s", results.durationSeconds()));
    md.append(". Environment: ").append(inline(results.environment())).append(".\n\n");
    md.append("Parameters: ").append(inline(results.parameters())).append(".\n\n");
    md.append(
        table.ratios().isEmpty()
            ? "No ratios: neither Rota nor the seed SQL baseline ran.\n\n"
            : "Ratios: `a ÷ b` divides a's figure by b's; read with the row's arrow (↑ higher is"
                + " better, ↓ lower is better).\n\n");
    List<String> header = header(table);
    md.append("| ").append(String.join(" | ", header)).append(" |\n");
    md.append("|").append(" --- |".repeat(2)).append(" ---: |".repeat(header.size() - 2));
    md.append('\n');
    for (ComparisonTable.Row row : table.rows()) {
      List<String> line = new ArrayList<>();
      line.add(row.workload());
      line.addAll(cells(table, row));
      md.append("| ").append(String.join(" | ", line)).append(" |\n");
    }
    md.append("\n## Systems\n\n");
    for (SystemResult system : results.systems()) {
      md.append("- **").append(system.system()).append("** — ").append(system.description());
      if (system.status() != Status.OK) {
        md.append(" — **").append(system.status().label()).append("**: ").append(system.reason());
      }
      md.append('\n');
    }
    md.append("\n## Notes\n\n");
    for (SystemResult system : results.systems()) {
      for (WorkloadResult workload : system.workloads()) {
        if (!workload.note().isEmpty()) {
          md.append("- ")
              .append(system.system())
              .append(" / ")
              .append(workload.workload())
              .append(" (")
              .append(workload.status().label())
              .append("): ")
              .append(workload.note())
              .append('\n');
        }
      }
    }
    md.append("\n![latency and throughput](results.png)\n");
    return md.toString();
  }

  private static List<String> header(ComparisonTable table) {
    List<String> header = new ArrayList<>(List.of("workload", "metric"));
    header.addAll(table.systems());
    table.ratios().forEach(r -> header.add(r.header()));
    return header;
  }

  private static List<String> cells(ComparisonTable table, ComparisonTable.Row row) {
    List<String> cells = new ArrayList<>();
    cells.add(ComparisonTable.rowLabel(row));
    table.systems().forEach(s -> cells.add(row.cell(s)));
    table.ratios().forEach(r -> cells.add(table.ratioCell(row, r)));
    return cells;
  }

  private static String statusLines(BenchResults results) {
    StringBuilder out = new StringBuilder();
    for (SystemResult system : results.systems()) {
      if (system.status() != Status.OK) {
        out.append(system.system())
            .append(": ")
            .append(system.status().label())
            .append(" — ")
            .append(system.reason())
            .append('\n');
      }
      for (WorkloadResult workload : system.workloads()) {
        if (!workload.note().isEmpty()) {
          out.append(system.system())
              .append(" / ")
              .append(workload.workload())
              .append(": ")
              .append(workload.note())
              .append('\n');
        }
      }
    }
    return out.toString();
  }

  private static String inline(Map<String, Object> values) {
    List<String> parts = new ArrayList<>();
    values.forEach((k, v) -> parts.add(k + " " + v));
    return String.join(", ", parts);
  }
}
