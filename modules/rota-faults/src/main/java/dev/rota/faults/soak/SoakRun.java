package dev.rota.faults.soak;

import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import dev.rota.client.Agent;
import dev.rota.client.AgentSpec;
import dev.rota.client.RotaClient;
import dev.rota.client.RotaException;
import dev.rota.faults.check.HistoryChecker;
import dev.rota.faults.check.Verdict;
import dev.rota.faults.harness.ConfigOverlay;
import dev.rota.faults.harness.FaultCluster;
import dev.rota.faults.harness.FaultPostgres;
import dev.rota.faults.harness.JournalProbe;
import dev.rota.faults.harness.NodeProcess;
import dev.rota.faults.harness.WorkloadRunners;
import dev.rota.faults.history.Event.DeadLetter;
import dev.rota.faults.history.Event.FinalInbox;
import dev.rota.faults.history.History;
import dev.rota.faults.soak.SoakReport.Check;
import dev.rota.faults.soak.SoakReport.Row;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;

/**
 * A soak: one node from the runnable jar on the suite's embedded PostgreSQL, a steady paced load
 * for {@link SoakSettings#minutes()} over many agents, served by external runners over HTTP and by
 * the node's own runners, with a journal retention of minutes so that partitions are dropped all
 * along. Every period it prints a row ({@link SoakReport}) and rewrites {@code soak.md}; at the end
 * it drains, checks the history ({@link HistoryChecker}) and the long-run checks.
 */
public final class SoakRun {
  /** What a soak found. */
  public record Result(
      Verdict verdict,
      List<Check> checks,
      int partitionsDropped,
      Set<String> inClusterLeasesOpen,
      String feedFailure,
      Path report) {}

  private final SoakSettings settings;
  private final History history = new History();
  private final List<String> agents = new ArrayList<>();
  private final List<Row> rows = new ArrayList<>();

  public SoakRun(SoakSettings settings) {
    this.settings = settings;
    for (int i = 0; i < settings.agents(); i++) {
      agents.add(String.format("soak-%04d", i));
    }
  }

  public Result run() {
    Path out = settings.out();
    try (WebhookTurns turns = new WebhookTurns(history, 1, settings.inClusterRunners());
        FaultPostgres db = FaultPostgres.start(out.resolve("postgres"))) {
      Path config =
          ConfigOverlay.write(
              settings.config(), settings.nodeConfig(turns.port()), out, "soak-node.conf");
      try (FaultCluster cluster = FaultCluster.start(1, settings.jar(), config, db, out)) {
        return load(cluster, turns, db);
      }
    }
  }

  private Result load(FaultCluster cluster, WebhookTurns turns, FaultPostgres db) {
    NodeProcess node = cluster.node(1);
    URI api = URI.create("http://" + node.host() + ":" + node.httpPort());
    try (RotaClient client = RotaClient.builder(api).retries(2).build()) {
      skipInitialPartitions(db);
      register(client, turns);
      CompletionFeed feed = new CompletionFeed(history, turns, api, node.index());
      SoakSampler sampler = new SoakSampler(db.jdbcUrl());
      WorkloadRunners runners = new WorkloadRunners(cluster, history);
      SoakProducers producers = new SoakProducers(history, agents, api, node.index());
      try {
        runners.start(settings.httpRunners());
        long startMs = System.currentTimeMillis();
        producers.start(settings.producers(), settings.rate());
        say(
            "%d notifications/s over %d agents for %d min; %d HTTP and %d in-cluster runners;"
                + " retention %s; out %s",
            settings.rate(),
            settings.agents(),
            settings.minutes(),
            settings.httpRunners(),
            settings.inClusterRunners(),
            settings.retention(),
            settings.out());
        say("%s", SoakReport.header().replace("\n", "\n[soak] "));
        int period = (int) settings.window().toMinutes();
        for (int from = 0; from < settings.minutes(); from += period) {
          int to = Math.min(settings.minutes(), from + period);
          sleepUntil(startMs + Duration.ofMinutes(to).toMillis());
          Row row =
              SoakReport.row(
                  startMs,
                  from,
                  to,
                  new SoakStats.Index(history.events()),
                  sampler.samples(),
                  SoakSampler.collections(settings.out()));
          rows.add(row);
          say("%s", SoakReport.line(row));
          write(rows, List.of(), null, sampler.lastError());
        }
        producers.stop();
        say("producers stopped after %d acknowledged; draining", producers.acknowledged());
        boolean drained = drain(client, Duration.ofMinutes(3));
        runners.stop();
        Set<String> open = feed.awaitEnded(Duration.ofSeconds(60));
        recordFinalState(client);
        if (!drained) {
          say("not drained within 3 minutes");
        }
        history.write(settings.out().resolve("history.jsonl"));
        Verdict verdict = HistoryChecker.check(history.events());
        List<Check> checks = new ArrayList<>();
        checks.add(
            SoakReport.databaseSize(
                startMs,
                settings.minutes(),
                settings.retention(),
                settings.window(),
                sampler.samples()));
        SoakStats.Index index = new SoakStats.Index(history.events());
        checks.addAll(SoakReport.lastAgainstEarly(startMs, settings.minutes(), index));
        List<SoakSampler.Sample> samples = sampler.samples();
        int dropped = samples.isEmpty() ? 0 : samples.get(samples.size() - 1).droppedSoFar();
        Path report = write(rows, checks, verdict, sampler.lastError());
        return new Result(verdict, checks, dropped, open, feed.failure(), report);
      } finally {
        producers.stop();
        producers.close();
        runners.stop();
        sampler.close();
        feed.close();
      }
    }
  }

  /** So that partitions of the configured size are dropped from the first retention window on. */
  private void skipInitialPartitions(FaultPostgres db) {
    try (Connection c = DriverManager.getConnection(db.jdbcUrl(), "postgres", "")) {
      long first =
          JournalProbe.skipInitialPartitions(
              c, settings.maintenanceInterval().multipliedBy(3).plusSeconds(30));
      say("the run's events start at ordering %d (above V13's initial partitions)", first);
    } catch (SQLException e) {
      throw new IllegalStateException("cannot prepare the journal: " + e, e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted", e);
    }
  }

  private void register(RotaClient client, WebhookTurns turns) {
    AgentSpec spec =
        AgentSpec.create()
            .maxAttempts(100)
            .maxInboxDepth(100_000)
            .metadata(JsonNodeFactory.instance.objectNode().put("webhookUrl", turns.url()));
    for (String agent : agents) {
      client.registerAgent(agent, spec);
    }
  }

  /** Until no agent has unread notifications or a lease, at most {@code timeout}. */
  private boolean drain(RotaClient client, Duration timeout) {
    long deadline = System.nanoTime() + timeout.toNanos();
    int from = 0;
    while (System.nanoTime() < deadline) {
      // Resume where the last pass found work, so a pass is cheap once most agents are empty.
      int busy = -1;
      for (int i = 0; i < agents.size() && busy < 0; i++) {
        int at = (from + i) % agents.size();
        Agent view = view(client, agents.get(at));
        if (view == null || view.inbox().unread() > 0 || view.lease() != null) {
          busy = at;
        }
      }
      if (busy < 0) {
        return true;
      }
      from = busy;
      sleep(500);
    }
    return false;
  }

  private void recordFinalState(RotaClient client) {
    for (String agent : agents) {
      long now = System.currentTimeMillis();
      Agent view = view(client, agent);
      if (view == null) {
        history.add(new FinalInbox(agent, -1, true, now));
        continue;
      }
      history.add(new FinalInbox(agent, view.inbox().unread(), view.lease() != null, now));
      try {
        for (dev.rota.client.DeadLetter letter : client.deadLetters(agent, 100)) {
          history.add(new DeadLetter(agent, letter.payload().path("k").asText(), now));
        }
      } catch (RotaException e) {
        // Counted as not dead-lettered: its keys then show up as lost, never hidden.
      }
    }
  }

  private static Agent view(RotaClient client, String agent) {
    try {
      return client.getAgent(agent);
    } catch (RotaException e) {
      return null;
    }
  }

  private Path write(List<Row> rows, List<Check> checks, Verdict verdict, String samplerError) {
    StringBuilder md = new StringBuilder("# Soak\n\n");
    md.append(
        String.format(
            "%s: one node on PostgreSQL, %d notifications/s over %d agents, %d HTTP and %d"
                + " in-cluster runners, retention %s (snapshot every %d events, maintenance every"
                + " %s, partitions of at least %d rows), %d minutes.\n\n",
            Instant.now(),
            settings.rate(),
            settings.agents(),
            settings.httpRunners(),
            settings.inClusterRunners(),
            settings.retention(),
            settings.snapshotEvery(),
            settings.maintenanceInterval(),
            settings.partitionMinRows(),
            settings.minutes()));
    md.append(SoakReport.header()).append('\n');
    rows.forEach(r -> md.append(SoakReport.line(r)).append('\n'));
    if (samplerError != null) {
      md.append("\nThe database sampler's last error: ").append(samplerError).append('\n');
    }
    if (!checks.isEmpty()) {
      md.append('\n').append(SoakReport.checks(checks));
    }
    if (verdict != null) {
      md.append(
          String.format(
              "%nHistory: %d notifications acknowledged, %d completed; lost %d, duplicate"
                  + " completions %d, duplicate accepts %d, stale accepted %d, overlapping holds %d,"
                  + " undrained %d.%n",
              verdict.acknowledged(),
              verdict.completed(),
              verdict.lost().size(),
              verdict.duplicateCompletions().size(),
              verdict.duplicateAccepts().size(),
              verdict.staleAccepted().size(),
              verdict.overlappingHolds().size(),
              verdict.undrained().size()));
      verdict.violations().stream().limit(20).forEach(v -> md.append("- ").append(v).append('\n'));
    }
    Path file = settings.out().resolve("soak.md");
    try {
      Files.writeString(file, md);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return file;
  }

  private static void say(String format, Object... args) {
    System.out.println("[soak] " + String.format(format, args));
  }

  private static void sleepUntil(long epochMs) {
    long wait;
    while ((wait = epochMs - System.currentTimeMillis()) > 0) {
      sleep(Math.min(wait, 1000));
    }
  }

  private static void sleep(long millis) {
    try {
      Thread.sleep(millis);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted", e);
    }
  }
}
