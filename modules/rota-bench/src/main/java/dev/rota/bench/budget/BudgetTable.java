package dev.rota.bench.budget;

import dev.rota.bench.budget.PgCounters.LevelCounters;
import dev.rota.bench.budget.PgCounters.StatementCounters;
import dev.rota.bench.budget.PgCounters.TableCounters;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.ToDoubleFunction;

/**
 * The budget as markdown, ready for docs/performance.md: the levels measured side by side (the JVM
 * by stage, then PostgreSQL), then per level its tables, its statement shapes, and the frames of
 * the samples no rule placed.
 */
public final class BudgetTable {

  /** Statement shapes listed per level, by time; the rest are added up in one row. */
  static final int TOP_STATEMENTS = 15;

  /** Unplaced frames listed per level. */
  static final int TOP_UNPLACED = 8;

  private BudgetTable() {}

  public static String markdown(List<Budget> budgets, StageRules rules) {
    StringBuilder md = new StringBuilder();
    if (budgets.isEmpty()) {
      return "(no budget was measured)\n";
    }
    for (Budget b : budgets) {
      md.append(
          String.format(
              Locale.ROOT,
              "- %s: %,d activations over %.1f s counted (%,.0f/s), %,d execution samples (a"
                  + " share is known to ±%.1f points at most, one standard error; %.1f %% with"
                  + " stacks cut off), %d GC pauses of %.1f ms in all%n",
              label(b),
              b.activations(),
              b.seconds(),
              b.activations() / Math.max(1e-9, b.seconds()),
              b.profile().totalSamples(),
              50 / Math.sqrt(Math.max(1, b.profile().totalSamples())),
              100.0 * b.profile().truncatedSamples() / Math.max(1, b.profile().totalSamples()),
              b.profile().gcPauses(),
              b.profile().gcPauseMillis()));
      for (String note : b.notes()) {
        md.append("  - note: ").append(note).append('\n');
      }
      if (b.statementsUnavailable() != null) {
        md.append("  - note: ").append(b.statementsUnavailable()).append('\n');
      }
    }
    md.append('\n');
    jvm(md, budgets, rules);
    md.append('\n');
    postgres(md, budgets);
    for (Budget b : budgets) {
      md.append("\n#### ").append(label(b)).append(": tables\n\n");
      tables(md, b);
      md.append("\n#### ").append(label(b)).append(": statements\n\n");
      statements(md, b);
      if (!b.profile().unplacedFrames().isEmpty()) {
        md.append("\n#### ").append(label(b)).append(": where the samples in \"other\" were\n\n");
        unplaced(md, b);
      }
    }
    return md.toString();
  }

  static String label(Budget b) {
    return b.system() + " " + compact(b.level()) + " R=" + b.runners();
  }

  private static void jvm(StringBuilder md, List<Budget> budgets, StageRules rules) {
    md.append("| JVM CPU per activation, ms");
    for (Budget b : budgets) {
      md.append(" | ").append(label(b)).append(" | share | KB allocated");
    }
    md.append(" |\n| ---");
    md.append(" | ---: | ---: | ---:".repeat(budgets.size())).append(" |\n");
    for (String stage : rules.stages()) {
      boolean seen =
          stage.equals(StageRules.OTHER)
              || budgets.stream().anyMatch(b -> b.profile().samples().containsKey(stage));
      if (!seen) {
        continue;
      }
      md.append("| ").append(stage);
      for (Budget b : budgets) {
        md.append(" | ").append(ms(b.stageMillisPerActivation(stage)));
        md.append(" | ").append(percent(b.sampleShare(stage)));
        md.append(" | ").append(number(b.allocatedKbPerActivation(stage), 1));
      }
      md.append(" |\n");
    }
    row(md, budgets, "**Java threads, all stages**", b -> b.perActivation(b.javaThreadsMillis()));
    for (String group : JvmThreads.ORDER) {
      row(md, budgets, group, b -> b.groupMillisPerActivation(group));
    }
    row(
        md,
        budgets,
        "**the node's JVM (process CPU)**",
        b -> b.perActivation(b.processCpuMillis()));
    row(
        md,
        budgets,
        "of which in the kernel (system time)",
        b -> b.perActivation(b.kernelMillis()));
    row(md, budgets, "the runners' JVM (over HTTP)", b -> b.perActivation(b.runnerCpuMillis()));
    row(md, budgets, "PostgreSQL (process tree)", b -> b.perActivation(b.postgresCpuMillis()));
    row(md, budgets, "**whole machine**", Budget::machineMillisPerActivation);
  }

  private static void row(
      StringBuilder md, List<Budget> budgets, String name, ToDoubleFunction<Budget> perActivation) {
    md.append("| ").append(name);
    for (Budget b : budgets) {
      md.append(" | ").append(ms(perActivation.applyAsDouble(b))).append(" | | ");
    }
    md.append(" |\n");
  }

  private static void postgres(StringBuilder md, List<Budget> budgets) {
    md.append("| PostgreSQL per activation");
    for (Budget b : budgets) {
      md.append(" | ").append(label(b));
    }
    md.append(" |\n| ---").append(" | ---:".repeat(budgets.size())).append(" |\n");
    pgRow(md, budgets, "CPU, ms", b -> b.perActivation(b.postgresCpuMillis()), 3);
    pgRow(md, budgets, "statements", b -> b.perActivation(b.statementTotals().calls()), 2);
    pgRow(md, budgets, "transactions begun (BEGIN)", b -> b.perActivation(calls(b, "BEGIN")), 2);
    pgRow(
        md,
        budgets,
        "savepoints (a lower bound)",
        b -> b.perActivation(calls(b, "SAVEPOINT <name>")),
        2);
    pgRow(
        md,
        budgets,
        "statement time, ms",
        b -> b.perActivation(b.statementTotals().execMillis()),
        3);
    pgRow(
        md,
        budgets,
        "rows (as statements report them)",
        b -> b.perActivation(b.statementTotals().rows()),
        2);
    pgRow(md, budgets, "WAL bytes", b -> b.perActivation(b.walBytes()), 0);
    pgRow(
        md,
        budgets,
        "WAL bytes of statements",
        b -> b.perActivation(b.statementTotals().walBytes()),
        0);
    pgRow(
        md,
        budgets,
        "WAL records of statements",
        b -> b.perActivation(b.statementTotals().walRecords()),
        2);
    pgRow(
        md,
        budgets,
        "full-page images of statements",
        b -> b.perActivation(b.statementTotals().walFpi()),
        3);
    pgRow(md, budgets, "level: rows inserted", b -> level(b, t -> t.inserted()), 2);
    pgRow(md, budgets, "level: rows updated", b -> level(b, t -> t.updated()), 2);
    pgRow(md, budgets, "level: of which HOT", b -> level(b, t -> t.hotUpdated()), 2);
    pgRow(md, budgets, "level: index entries (estimate)", b -> level(b, Budget::indexEntries), 2);
    pgRow(md, budgets, "level: commits", b -> levelTotal(b, LevelCounters::commits), 2);
    pgRow(
        md,
        budgets,
        "level: WAL bytes (pg_stat_wal)",
        b -> levelTotal(b, LevelCounters::walBytes),
        0);
    pgRow(
        md,
        budgets,
        "level: WAL records (pg_stat_wal)",
        b -> levelTotal(b, LevelCounters::walRecords),
        2);
    pgRow(
        md,
        budgets,
        "level: notifications topped up",
        b -> b.perLevelActivation(b.levelToppedUp()),
        2);
    md.append(
        "\nRows above \"level:\" are over the counted segments; \"level:\" rows are over the whole"
            + " level, warm-up and top-ups included, per activation of the level (PostgreSQL"
            + " reports those counters at most once a second).\n");
  }

  private static double calls(Budget b, String query) {
    return b.statements().stream()
        .filter(s -> s.query().strip().equalsIgnoreCase(query))
        .mapToLong(StatementCounters::calls)
        .sum();
  }

  private static double level(Budget b, java.util.function.ToLongFunction<TableCounters> field) {
    if (b.levelCounters() == null) {
      return Double.NaN;
    }
    return b.perLevelActivation(
        b.levelCounters().tables().values().stream().mapToLong(field).sum());
  }

  private static double levelTotal(
      Budget b, java.util.function.ToLongFunction<LevelCounters> field) {
    return b.levelCounters() == null
        ? Double.NaN
        : b.perLevelActivation(field.applyAsLong(b.levelCounters()));
  }

  private static void pgRow(
      StringBuilder md,
      List<Budget> budgets,
      String name,
      ToDoubleFunction<Budget> perActivation,
      int decimals) {
    md.append("| ").append(name);
    for (Budget b : budgets) {
      md.append(" | ").append(number(perActivation.applyAsDouble(b), decimals));
    }
    md.append(" |\n");
  }

  private static void tables(StringBuilder md, Budget b) {
    if (b.levelCounters() == null) {
      md.append("(not read)\n");
      return;
    }
    md.append(
        String.format(
            Locale.ROOT,
            "Over the whole level (%,d activations, %.2f notifications topped up per activation),"
                + " per activation:%n%n",
            b.levelActivations(),
            b.perLevelActivation(b.levelToppedUp())));
    md.append(
        "| table | inserted | updated | HOT share | deleted | indexes (partial) | index entries"
            + " |\n| --- | ---: | ---: | ---: | ---: | ---: | ---: |\n");
    for (Map.Entry<String, TableCounters> e : b.levelCounters().tables().entrySet()) {
      TableCounters t = e.getValue();
      if (t.inserted() == 0 && t.updated() == 0 && t.deleted() == 0) {
        continue;
      }
      md.append(
          String.format(
              Locale.ROOT,
              "| %s | %s | %s | %s | %s | %d (%d) | %s |%n",
              e.getKey(),
              number(b.perLevelActivation(t.inserted()), 2),
              number(b.perLevelActivation(t.updated()), 2),
              percent(Budget.hotShare(t)),
              number(b.perLevelActivation(t.deleted()), 2),
              t.indexes(),
              t.partialIndexes(),
              number(b.perLevelActivation(Budget.indexEntries(t)), 2)));
    }
  }

  private static void statements(StringBuilder md, Budget b) {
    if (b.statementsUnavailable() != null) {
      md.append("(").append(b.statementsUnavailable()).append(")\n");
      return;
    }
    md.append(
        "| calls | ms | rows | WAL bytes | statement |\n| ---: | ---: | ---: | ---: | --- |\n");
    List<StatementCounters> shown = b.statements();
    StatementCounters rest = new StatementCounters("", 0, 0, 0, 0, 0, 0);
    int restCount = 0;
    if (shown.size() > TOP_STATEMENTS) {
      for (StatementCounters s : shown.subList(TOP_STATEMENTS, shown.size())) {
        rest = rest.plus(s);
        restCount++;
      }
      shown = shown.subList(0, TOP_STATEMENTS);
    }
    List<StatementCounters> rows = new ArrayList<>(shown);
    if (restCount > 0) {
      rows.add(
          new StatementCounters(
              "(" + restCount + " other shapes)",
              rest.calls(),
              rest.execMillis(),
              rest.rows(),
              rest.walRecords(),
              rest.walFpi(),
              rest.walBytes()));
    }
    for (StatementCounters s : rows) {
      md.append(
          String.format(
              Locale.ROOT,
              "| %s | %s | %s | %s | `%s` |%n",
              number(b.perActivation(s.calls()), 3),
              number(b.perActivation(s.execMillis()), 4),
              number(b.perActivation(s.rows()), 2),
              number(b.perActivation(s.walBytes()), 0),
              shorten(s.query())));
    }
    md.append("\nPer activation, over the counted segments (`pg_stat_statements`).\n");
  }

  private static void unplaced(StringBuilder md, Budget b) {
    md.append("| samples | frame |\n| ---: | --- |\n");
    b.profile().unplacedFrames().entrySet().stream()
        .sorted(
            Map.Entry.<String, Long>comparingByValue()
                .reversed()
                .thenComparing(Map.Entry.<String, Long>comparingByKey()))
        .limit(TOP_UNPLACED)
        .forEach(
            e ->
                md.append("| ")
                    .append(e.getValue())
                    .append(" | `")
                    .append(e.getKey())
                    .append("` |\n"));
  }

  /** One line, at most 110 characters, no pipes or backticks (they would break the table). */
  static String shorten(String query) {
    String line = query.replaceAll("\\s+", " ").strip().replace('|', '¦').replace('`', '\'');
    return line.length() <= 110 ? line : line.substring(0, 107) + "...";
  }

  static String ms(double value) {
    return number(value, 3);
  }

  static String percent(double share) {
    return Double.isNaN(share) ? "" : String.format(Locale.ROOT, "%.1f %%", 100 * share);
  }

  static String number(double value, int decimals) {
    if (Double.isNaN(value) || Double.isInfinite(value)) {
      return "";
    }
    return String.format(Locale.ROOT, "%,." + decimals + "f", value);
  }

  static String compact(long n) {
    if (n >= 1_000 && n % 1_000 == 0) {
      return n / 1_000 + "k";
    }
    return Long.toString(n);
  }
}
