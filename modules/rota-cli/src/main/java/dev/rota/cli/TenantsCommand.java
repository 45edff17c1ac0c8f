package dev.rota.cli;

import com.fasterxml.jackson.databind.JsonNode;
import dev.rota.client.RotaClient;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/**
 * {@code rota tenants}: every tenant with its weight, caps, agents and last minute (activations,
 * share of runner time against its fair share); {@code rota tenants set NAME --weight N
 * [--max-concurrent N] [--max-per-minute N]} and {@code rota tenants delete NAME}.
 */
@Command(
    name = "tenants",
    description =
        "Tenants with weight, caps, agents, unread, leases and their last minute (activations,"
            + " share of runner time against the fair share); set or delete one.",
    subcommands = {TenantsCommand.Set.class, TenantsCommand.Delete.class})
final class TenantsCommand implements Runnable {
  @Mixin ConnectionOptions options;

  @Override
  public void run() {
    JsonNode list;
    try (RotaClient client = options.client()) {
      list = client.tenants().list();
    }
    if (options.json) {
      options.printJson(list);
      return;
    }
    Table table =
        new Table(
            "TENANT",
            "WEIGHT",
            "MAX CONCURRENT",
            "MAX/MIN",
            "AGENTS",
            "UNREAD",
            "LEASED",
            "ACTIVATIONS/MIN",
            "SHARE",
            "FAIR",
            "OLDEST UNREAD");
    for (JsonNode t : list.path("tenants")) {
      table.row(
          t.path("tenant").asText(),
          t.path("weight").asInt(),
          cap(t.path("maxConcurrent")),
          cap(t.path("maxActivationsPerMinute")),
          t.path("agents").asLong(),
          t.path("unread").asLong(),
          t.path("leased").asLong(),
          t.path("activationsPerMinute").asLong(),
          percent(t.path("share").path("actual")),
          percent(t.path("share").path("fair")),
          t.path("unread").asLong() > 0 ? t.path("oldestUnreadAgeSeconds").asLong() + " s" : "-");
    }
    table.print(options.out());
  }

  private static String cap(JsonNode value) {
    return value.isNumber() ? value.asText() : "-";
  }

  private static String percent(JsonNode share) {
    return String.format("%.1f %%", share.asDouble() * 100);
  }

  @Command(
      name = "set",
      description = "Create a tenant or change its weight and caps (a cap not given is removed).")
  static final class Set implements Runnable {
    @Mixin ConnectionOptions options;

    @Parameters(paramLabel = "NAME", description = "The tenant: 1-64 of a-z, 0-9 and '-'.")
    String name;

    @Option(
        names = "--weight",
        required = true,
        paramLabel = "N",
        description = "Its weight in the share of runner time, 1-1000.")
    int weight;

    @Option(
        names = "--max-concurrent",
        paramLabel = "N",
        description = "Leases its agents may hold at once across the cluster (default: no cap).")
    Integer maxConcurrent;

    @Option(
        names = "--max-per-minute",
        paramLabel = "N",
        description = "Activations per minute across the cluster (default: no cap).")
    Integer maxPerMinute;

    @Override
    public void run() {
      JsonNode view;
      try (RotaClient client = options.client()) {
        view = client.tenants().set(name, weight, maxConcurrent, maxPerMinute);
      }
      if (options.json) {
        options.printJson(view);
        return;
      }
      options
          .out()
          .println(
              view.path("tenant").asText()
                  + ": weight "
                  + view.path("weight").asInt()
                  + ", max concurrent "
                  + cap(view.path("maxConcurrent"))
                  + ", max per minute "
                  + cap(view.path("maxActivationsPerMinute")));
      options.out().flush();
    }
  }

  @Command(name = "delete", description = "Delete a tenant that has no agents.")
  static final class Delete implements Runnable {
    @Mixin ConnectionOptions options;

    @Parameters(paramLabel = "NAME", description = "The tenant.")
    String name;

    @Override
    public void run() {
      try (RotaClient client = options.client()) {
        client.tenants().delete(name);
      }
      options.out().println(name + ": deleted");
      options.out().flush();
    }
  }
}
