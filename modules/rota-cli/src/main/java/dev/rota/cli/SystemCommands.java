package dev.rota.cli;

import dev.rota.client.RotaClient;
import java.io.PrintWriter;
import java.util.Map;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;

/**
 * The whole system: {@code rota stats}, {@code rota pools}, {@code rota pause}, {@code rota
 * resume}.
 */
final class SystemCommands {
  private SystemCommands() {}

  @Command(name = "stats", description = "Agents, inbox, activations, latency, runners, cluster.")
  static final class Stats implements Runnable {
    @Mixin ConnectionOptions options;

    @Override
    public void run() {
      dev.rota.client.Stats s;
      try (RotaClient client = options.client()) {
        s = client.stats();
      }
      if (options.json) {
        options.printJson(s);
        return;
      }
      PrintWriter out = options.out();
      new Table("", "")
          .row("paused", s.paused() ? "yes" : "no")
          .row(
              "agents",
              String.format(
                  "%d registered, %d with inbox, %d leased, %d paused",
                  s.agents().registered(),
                  s.agents().withInbox(),
                  s.agents().leased(),
                  s.agents().paused()))
          .row(
              "inbox",
              String.format(
                  "%d unread, oldest %d s", s.inbox().unread(), s.inbox().oldestUnreadAgeSeconds()))
          .row(
              "activations",
              String.format(
                  "%d inbox, %d scheduled, %d exploration; %d completed, %d failed, %d expired;"
                      + " %.1f/s (1 min)",
                  s.activations().inbox(),
                  s.activations().scheduled(),
                  s.activations().exploration(),
                  s.activations().completed(),
                  s.activations().failed(),
                  s.activations().expired(),
                  s.activations().perSecond1m()))
          .row(
              "latency",
              String.format(
                  "claim p50 %.1f ms, p99 %.1f ms; inbox wait p50 %.1f ms, p99 %.1f ms",
                  s.latency().claimMsP50(),
                  s.latency().claimMsP99(),
                  s.latency().inboxWaitMsP50(),
                  s.latency().inboxWaitMsP99()))
          .row(
              "fairness",
              String.format(
                  "stalest %d s, ideal interval %d s",
                  s.fairness().maxStalenessSeconds(), s.fairness().idealIntervalSeconds()))
          .row(
              "runners",
              String.format(
                  "%d active, %d busy, %d desired",
                  s.runners().active(), s.runners().busy(), s.runners().desired()))
          .row("dead letters", s.deadLetters())
          .row(
              "cluster",
              String.format(
                  "%d node(s), %d partitions", s.cluster().nodes(), s.cluster().partitions()))
          .print(out);
    }
  }

  @Command(
      name = "pools",
      description = "Desired runners per pool (the pool scaler), their backlog and capacity.")
  static final class Pools implements Runnable {
    @Mixin ConnectionOptions options;

    @Override
    public void run() {
      com.fasterxml.jackson.databind.JsonNode list;
      try (RotaClient client = options.client()) {
        list = client.pools();
      }
      if (options.json) {
        options.printJson(list);
        return;
      }
      Table table =
          new Table(
              "POOL",
              "MODE",
              "CAPABILITIES",
              "MIN..MAX",
              "ACTIVE",
              "BUSY",
              "DESIRED",
              "WAITING",
              "N·T/R",
              "FOR TARGET",
              "REASON");
      for (var p : list.path("pools")) {
        java.util.List<String> caps = new java.util.ArrayList<>();
        p.path("capabilities").forEach(c -> caps.add(c.asText()));
        table.row(
            p.path("name").asText(),
            p.path("mode").asText(),
            String.join(",", caps),
            p.path("min").asInt() + ".." + p.path("max").asInt(),
            p.path("active").asLong(),
            p.path("busy").asLong(),
            p.path("desired").asInt(),
            p.path("backlog").path("waiting").asLong(),
            p.path("capacity").path("idealIntervalSeconds").asLong() + " s",
            p.path("capacity").path("runnersForTargetStaleness").asLong()
                + " for "
                + p.path("capacity").path("targetStalenessSeconds").asLong()
                + " s",
            p.path("reason").asText());
      }
      table.print(options.out());
    }
  }

  @Command(
      name = "pause",
      description = "Pause the system: running activations finish, claims answer paused.")
  static final class Pause implements Runnable {
    @Mixin ConnectionOptions options;

    @Override
    public void run() {
      try (RotaClient client = options.client()) {
        print(options, client.pause());
      }
    }
  }

  @Command(name = "resume", description = "Resume the system after a pause.")
  static final class Resume implements Runnable {
    @Mixin ConnectionOptions options;

    @Override
    public void run() {
      try (RotaClient client = options.client()) {
        print(options, client.resume());
      }
    }
  }

  private static void print(ConnectionOptions options, boolean paused) {
    if (options.json) {
      options.printJson(Map.of("paused", paused));
    } else {
      options.out().println(paused ? "paused" : "running");
      options.out().flush();
    }
  }
}
