package dev.rota.server;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import dev.rota.server.testing.Databases;
import dev.rota.server.testing.NodeHttp;
import dev.rota.server.testing.TestDatabase;
import java.io.File;
import java.io.IOException;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.pekko.actor.testkit.typed.javadsl.LogCapturingExtension;
import org.awaitility.core.ConditionTimeoutException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code GET /metrics} of a real node after real traffic: Prometheus's own checker ({@code promtool
 * check metrics}, from Debian's {@code prometheus} package) finds nothing to complain about — every
 * series has HELP and TYPE, names follow the conventions — and the series docs/operations.md
 * promises are there with the values the traffic implies.
 */
@ExtendWith(LogCapturingExtension.class)
class MetricsExpositionTest {
  private static final Duration SAMPLED = Duration.ofSeconds(30);

  @Test
  void aBusyNodesMetricsPassPromtoolAndShowTheBacklog(@TempDir Path dir) throws Exception {
    String promtool = promtool();
    try (TestDatabase database = Databases.h2();
        RotaNode node =
            RotaNode.startWith(
                RotaConfig.load(
                    RotaNodeContract.TEST_NODE
                        .withValue(
                            "rota.metrics.sample-interval",
                            com.typesafe.config.ConfigValueFactory.fromAnyRef("200ms"))
                        .withFallback(database.config()),
                    Map.of()))) {
      NodeHttp api = new NodeHttp(node.httpPort());
      api.agentWithInbox("metrics-a", "metrics", 2);
      api.agentWithInbox("metrics-b", "metrics", 1);
      api.json("POST", "/v1/agents/nobody/notifications", "{\"type\":\"x\"}", 404);
      JsonNode claim =
          api.json(
              "POST",
              "/v1/claims",
              "{\"runnerId\":\"r1\",\"mode\":\"notification\",\"capabilities\":[\"metrics\"],"
                  + "\"waitSeconds\":5}",
              200);
      assertEquals("assigned", claim.get("status").asText(), claim.toString());
      String leaseId = claim.get("assignment").get("leaseId").asText();
      api.json(
          "POST",
          "/v1/leases/" + leaseId + "/fail",
          "{\"runnerId\":\"r1\",\"error\":\"no\",\"action\":\"cancel\"}",
          200);

      String scrape = awaitSample(api);

      Path file = dir.resolve("metrics.txt");
      Files.writeString(file, scrape);
      Process check =
          new ProcessBuilder(promtool, "check", "metrics")
              .redirectInput(file.toFile())
              .redirectErrorStream(true)
              .start();
      String output = new String(check.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
      assertTrue(check.waitFor(60, TimeUnit.SECONDS), "promtool did not finish");
      assertEquals(0, check.exitValue(), "promtool check metrics:\n" + output);
      assertEquals("", output.strip(), "promtool check metrics found problems");

      assertHelpForEveryFamily(scrape);
      assertDeployedQueriesUseExistingSeries(scrape);
      assertTrue(scrape.contains("rota_agents{state=\"registered\"} 2.0"), scrape);
      assertTrue(scrape.contains("rota_agents{state=\"with_inbox\"} 1.0"), scrape);
      assertTrue(scrape.contains("rota_inbox_unread 1.0"), scrape);
      assertTrue(scrape.contains("rota_dead_letters 2.0"), scrape);
      assertTrue(scrape.contains("rota_notifications_accepted_total 3.0"), scrape);
      assertTrue(
          scrape.contains("rota_notifications_refused_total{reason=\"not_found\"} 1.0"), scrape);
      assertTrue(scrape.contains("rota_leases_granted_total{kind=\"inbox\"} 1.0"), scrape);
      assertTrue(scrape.contains("rota_notifications_dead_lettered_total 2.0"), scrape);
      assertTrue(scrape.contains("rota_read_model_up 1.0"), scrape);
      // By pool, never by runner: r1 is an external runner.
      assertTrue(
          scrape.contains(
              "rota_runner_activations_total{outcome=\"failed\",pool=\"external\"} 1.0"),
          scrape);
      assertTrue(!scrape.contains("runner=\"") && !scrape.contains("runnerId=\""), scrape);
      for (String series :
          List.of(
              "rota_inbox_oldest_unread_age_seconds ",
              "rota_leases_active ",
              "rota_leases_expired_total ",
              "rota_leases_rescued_total ",
              "rota_runners{state=\"active\"}",
              // the pool scaler's catch-all pool (no rota.pools.pools on this node)
              "rota_pool_desired_runners{pool=\"default\"}",
              "rota_system_paused 0.0",
              // by tenant: the table's names (default here) and other, never an input's
              "rota_tenant_agents{tenant=\"default\"} 2.0",
              "rota_tenant_unread{tenant=\"default\"} 1.0",
              "rota_tenant_leased{tenant=\"other\"} 0.0",
              "rota_tenant_oldest_unread_age_seconds{tenant=\"default\"}",
              "rota_tenant_activations_total{tenant=\"default\"} 1.0",
              // the dispatcher's shares (decision 117): no tenants here, so no runner time counted
              "rota_tenant_runner_seconds{tenant=\"default\"} 0.0",
              "rota_tenant_share_actual{tenant=\"default\"} 0.0",
              "rota_tenant_share_fair{tenant=\"default\"}",
              "rota_http_requests_seconds_count{method=\"POST\",route=\"/v1/claims\",status=\"200\"}",
              "jvm_memory_used_bytes",
              "jvm_gc_memory_allocated_bytes_total",
              "process_cpu_usage",
              "process_uptime_seconds",
              "jvm_threads_live_threads")) {
        assertTrue(scrape.contains(series), series + " missing");
      }
    }
  }

  @Test
  void theAlertRulesPassPromtool() throws Exception {
    Path rules = repository().resolve("deploy/prometheus/rota-alerts.yml");
    Process check =
        new ProcessBuilder(promtool(), "check", "rules", rules.toString())
            .redirectErrorStream(true)
            .start();
    String output = new String(check.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertTrue(check.waitFor(60, TimeUnit.SECONDS), "promtool did not finish");
    assertEquals(0, check.exitValue(), output);
    assertTrue(output.contains("SUCCESS: 5 rules found"), output);
  }

  /**
   * The alert rules and the Grafana dashboard in deploy/ name only series the node exports: a
   * renamed meter would otherwise leave an alert that never fires.
   */
  private static void assertDeployedQueriesUseExistingSeries(String scrape) throws IOException {
    Pattern series = Pattern.compile("\\b((?:rota|jvm|process)_[a-z0-9_]+)");
    for (String file :
        List.of("deploy/prometheus/rota-alerts.yml", "deploy/grafana/rota-dashboard.json")) {
      Matcher m = series.matcher(Files.readString(repository().resolve(file)));
      Set<String> names = new TreeSet<>();
      while (m.find()) {
        names.add(m.group(1));
      }
      assertTrue(names.size() > 5, file + " names " + names);
      for (String name : names) {
        assertTrue(
            Pattern.compile("(?m)^" + name + "[{ ]").matcher(scrape).find(),
            file + " queries " + name + ", which /metrics does not export");
      }
    }
  }

  private static Path repository() {
    return RotaConfigTest.OVERLAYS.getParent().toAbsolutePath().normalize();
  }

  /** Polls until the sampler has seen the traffic (it samples every 200 ms here). */
  private static String awaitSample(NodeHttp api) {
    AtomicReference<String> scrape = new AtomicReference<>("");
    try {
      await()
          .atMost(SAMPLED)
          .pollDelay(Duration.ZERO)
          .pollInterval(Duration.ofMillis(100))
          .until(
              () -> {
                HttpResponse<String> metrics = api.send("GET", "/metrics", null);
                assertEquals(200, metrics.statusCode());
                String body = metrics.body();
                scrape.set(body);
                // The tenants' figures are sampled apart from the totals: await both.
                return body.contains("rota_dead_letters 2.0")
                    && body.contains("rota_agents{state=\"registered\"} 2.0")
                    && body.contains("rota_inbox_unread 1.0")
                    && body.contains("rota_tenant_agents{tenant=\"default\"} 2.0")
                    && body.contains("rota_tenant_unread{tenant=\"default\"} 1.0")
                    && body.contains("rota_pool_desired_runners{pool=\"default\"}");
              });
    } catch (ConditionTimeoutException e) {
      // the caller's assertions name what the last scrape lacks
    }
    return scrape.get();
  }

  private static void assertHelpForEveryFamily(String scrape) {
    Set<String> help = new HashSet<>();
    List<String> missing = new ArrayList<>();
    for (String line : scrape.split("\n")) {
      if (line.startsWith("# HELP ")) {
        String[] parts = line.split(" ", 4);
        assertTrue(parts.length == 4 && !parts[3].isBlank(), "empty HELP: " + line);
        help.add(parts[2]);
      } else if (line.startsWith("# TYPE ") && !help.contains(line.split(" ")[2])) {
        missing.add(line);
      }
    }
    assertEquals(List.of(), missing, "families without HELP");
  }

  /**
   * Prometheus's checker: Debian's {@code prometheus} package ships it ({@code apt-get install -y
   * prometheus}; .ci/run installs it). Its absence fails the test: a skipped check would pass
   * silently.
   */
  static String promtool() {
    for (String dir : System.getenv().getOrDefault("PATH", "/usr/bin").split(File.pathSeparator)) {
      File candidate = new File(dir, "promtool");
      if (candidate.canExecute()) {
        return candidate.getAbsolutePath();
      }
    }
    throw new AssertionError(
        "promtool is not installed: it checks the /metrics exposition format. Install Debian's"
            + " prometheus package (as root: apt-get update && apt-get install -y prometheus),"
            + " as .ci/run does");
  }
}
