package dev.rota.cli;

import com.fasterxml.jackson.databind.JsonNode;
import dev.rota.client.RotaClient;
import java.util.ArrayList;
import java.util.List;
import java.util.function.BiFunction;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Parameters;

/**
 * {@code rota runners}: every runner with its status (idle, executing, degraded, draining) and its
 * figures over the last hour; {@code rota runners drain ID} and {@code rota runners restore ID}.
 */
@Command(
    name = "runners",
    description =
        "Runners with status and figures (completed, failed, expired, mean and p95 activation"
            + " time, last error); drain or restore one.",
    subcommands = {RunnersCommand.Drain.class, RunnersCommand.Restore.class})
final class RunnersCommand implements Runnable {
  @Mixin ConnectionOptions options;

  @Override
  public void run() {
    JsonNode list;
    try (RotaClient client = options.client()) {
      list = client.runners();
    }
    if (options.json) {
      options.printJson(list);
      return;
    }
    Table table =
        new Table(
            "RUNNER",
            "STATUS",
            "MODE",
            "NODE",
            "COMPLETED",
            "FAILED",
            "EXPIRED",
            "MEAN",
            "P95",
            "LAST ERROR",
            "WHY");
    for (JsonNode r : list.path("runners")) {
      JsonNode stats = r.path("stats");
      table.row(
          r.path("runnerId").asText(),
          r.path("status").asText(),
          r.path("mode").asText("-"),
          r.path("node").isNull() ? "external" : r.path("node").asText("-"),
          stats.path("completed").asLong(),
          stats.path("failed").asLong(),
          stats.path("expired").asLong(),
          seconds(stats.path("meanActivationSeconds")),
          seconds(stats.path("p95ActivationSeconds")),
          stats.path("lastError").asText(""),
          why(r));
    }
    table.print(options.out());
  }

  private static String seconds(JsonNode value) {
    return value.isNumber() ? String.format("%.1f s", value.asDouble()) : "-";
  }

  private static String why(JsonNode runner) {
    JsonNode degraded = runner.path("degraded");
    if (degraded.isMissingNode() || degraded.isNull()) {
      return "";
    }
    return degraded.path("reason").asText() + " (until " + degraded.path("until").asText() + ")";
  }

  private static void change(
      ConnectionOptions options,
      List<String> ids,
      BiFunction<RotaClient, String, JsonNode> change) {
    List<JsonNode> answers = new ArrayList<>();
    try (RotaClient client = options.client()) {
      for (String id : ids) {
        answers.add(change.apply(client, id));
      }
    }
    if (options.json) {
      options.printJson(answers);
      return;
    }
    for (JsonNode a : answers) {
      options.out().println(a.path("runnerId").asText() + ": " + a.path("status").asText());
    }
    options.out().flush();
  }

  @Command(name = "drain", description = "Give runners no new work; their current leases run on.")
  static final class Drain implements Runnable {
    @Mixin ConnectionOptions options;

    @Parameters(paramLabel = "RUNNER_ID", arity = "1..*", description = "Runner ids.")
    List<String> ids;

    @Override
    public void run() {
      change(options, ids, RotaClient::drainRunner);
    }
  }

  @Command(name = "restore", description = "Clear runners' degradation or drain.")
  static final class Restore implements Runnable {
    @Mixin ConnectionOptions options;

    @Parameters(paramLabel = "RUNNER_ID", arity = "1..*", description = "Runner ids.")
    List<String> ids;

    @Override
    public void run() {
      change(options, ids, RotaClient::restoreRunner);
    }
  }
}
