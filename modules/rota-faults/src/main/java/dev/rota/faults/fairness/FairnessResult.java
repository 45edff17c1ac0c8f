package dev.rota.faults.fairness;

import java.util.List;
import java.util.Map;

/**
 * What a {@link FairnessAcrossNodes} run measured.
 *
 * @param seconds the measured window
 * @param runnerMillis runner time (claim answered → completion answered, the part inside the
 *     window) by tenant, as the runners measured it
 * @param turns turns begun inside the window, by tenant
 * @param turnsByNode turns begun inside the window, by the node the runner claimed from
 * @param hosts agents by the node hosting them at the end
 * @param quietMillis each quiet notification's time from being sent to the claim that carried it
 * @param quietAcceptMillis each quiet notification's time from being sent to its answer (202): the
 *     part of {@code quietMillis} that is the write, not the rule
 * @param quietUnclaimed quiet notifications sent in the window that no claim carried
 * @param errors requests that failed (any error), counted, not fatal
 * @param views what each node's {@code GET /admin/tenants} showed at the end of the window: node →
 *     tenant → {actual, fair}
 */
public record FairnessResult(
    double seconds,
    Map<String, Long> runnerMillis,
    Map<String, Long> turns,
    Map<Integer, Long> turnsByNode,
    Map<Integer, Long> hosts,
    List<Double> quietMillis,
    List<Double> quietAcceptMillis,
    int quietUnclaimed,
    long errors,
    Map<Integer, Map<String, double[]>> views,
    String loadBefore,
    String loadAfter) {

  /** The weighted tenant's part of the two flooded tenants' runner time: 0.75 at 3 : 1. */
  public double acmeShare() {
    long acme = runnerMillis.getOrDefault(FairnessAcrossNodes.ACME, 0L);
    long beta = runnerMillis.getOrDefault(FairnessAcrossNodes.BETA, 0L);
    return acme + beta == 0 ? 0 : (double) acme / (acme + beta);
  }

  /** The same by turns begun. */
  public double acmeTurnShare() {
    long acme = turns.getOrDefault(FairnessAcrossNodes.ACME, 0L);
    long beta = turns.getOrDefault(FairnessAcrossNodes.BETA, 0L);
    return acme + beta == 0 ? 0 : (double) acme / (acme + beta);
  }

  /** The {@code q} quantile of the quiet tenant's notification → claim times, in ms. */
  public double quietPercentile(double q) {
    return percentile(quietMillis, q);
  }

  private static double percentile(List<Double> values, double q) {
    if (values.isEmpty()) {
      return Double.NaN;
    }
    List<Double> sorted = values.stream().sorted().toList();
    int i = (int) Math.ceil(q * sorted.size()) - 1;
    return sorted.get(Math.max(0, Math.min(i, sorted.size() - 1)));
  }

  /** A Markdown table of the figures, with the load and what each node's admin view showed. */
  public String render() {
    StringBuilder out = new StringBuilder();
    out.append(
        "| on 3 nodes | window | acme : beta runner time | by turns | turns (acme/beta/quiet) |"
            + " quiet p50 | quiet p99 | quiet max | quiet claimed |\n");
    out.append("|---|---|---|---|---|---|---|---|---|\n");
    out.append(
        String.format(
            "| measured | %.0f s | **%.3f** / %.3f | %.3f / %.3f | %d / %d / %d | %.0f ms |"
                + " **%.0f ms** | %.0f ms | %d of %d |%n",
            seconds,
            acmeShare(),
            1 - acmeShare(),
            acmeTurnShare(),
            1 - acmeTurnShare(),
            turns.getOrDefault(FairnessAcrossNodes.ACME, 0L),
            turns.getOrDefault(FairnessAcrossNodes.BETA, 0L),
            turns.getOrDefault(FairnessAcrossNodes.QUIET, 0L),
            quietPercentile(0.5),
            quietPercentile(0.99),
            quietPercentile(1.0),
            quietMillis.size(),
            quietMillis.size() + quietUnclaimed));
    out.append(
        String.format(
            "%nquiet notification sent → its 202: p50 %.0f ms, p99 %.0f ms, max %.0f ms%n"
                + "turns by the runners' node: %s; agents by host: %s; failed requests: %d%n",
            percentile(quietAcceptMillis, 0.5),
            percentile(quietAcceptMillis, 0.99),
            percentile(quietAcceptMillis, 1.0),
            turnsByNode,
            hosts,
            errors));
    views.forEach(
        (node, tenants) -> {
          out.append(String.format("node %d's GET /admin/tenants:", node));
          tenants.forEach(
              (tenant, share) ->
                  out.append(
                      String.format(" %s actual %.3f fair %.3f;", tenant, share[0], share[1])));
          out.append('\n');
        });
    out.append(String.format("load before: %s; after: %s%n", loadBefore, loadAfter));
    return out.toString();
  }
}
