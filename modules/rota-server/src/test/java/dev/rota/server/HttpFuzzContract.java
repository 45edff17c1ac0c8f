package dev.rota.server;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.rota.server.fuzz.HttpFuzzer;
import dev.rota.server.testing.RawHttp;
import dev.rota.server.testing.RawHttp.Response;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.awaitility.core.ConditionTimeoutException;
import org.junit.jupiter.api.Test;

/**
 * The fuzz suite: {@link HttpFuzzer} sends generated, mostly hostile requests to every route of a
 * whole node for a bounded time ({@code rota.fuzz.seconds}, 5 s by default; {@code mvn verify
 * -Pfuzz} runs ten minutes), then checks that no answer broke the contract (no 5xx but the
 * documented 503, every error in the JSON error body), that no agent is left unable to serve a
 * valid request, and that no partition's read model stopped. Its report goes to stdout and to
 * {@code target/fuzz-report-<database>.txt}, each problem with the request that caused it.
 */
abstract class HttpFuzzContract extends NodeOnDatabase {
  private static final ObjectMapper JSON = new ObjectMapper();

  @Test
  void hostileRequestsGetTheContractsAnswersAndLeaveEveryAgentServing() throws Exception {
    Duration budget = Duration.ofSeconds(Long.getLong("rota.fuzz.seconds", 5));
    HttpFuzzer fuzzer = new HttpFuzzer(node.httpPort());

    HttpFuzzer.Report report = fuzzer.run(budget, Long.MAX_VALUE);
    fuzzer.settle();
    List<String> wedged = wedgedAgents();
    JsonNode stats = awaitReadModelCaughtUp();

    String summary =
        String.format(
            "fuzz on %s: %d requests in %d s, answers by status %s, 5xx %d,"
                + " contract breaches %d, wedged agents %d, read-model skipped events %d%n"
                + "requests by route %s%n%s",
            database.displayName(),
            report.requests(),
            budget.toSeconds(),
            report.byStatus(),
            report.serverErrors(),
            report.problems().size(),
            wedged.size(),
            stats.at("/readModel/skippedEvents").asLong(),
            report.byRoute(),
            String.join(
                "\n", report.problems().subList(0, Math.min(20, report.problems().size()))));
    System.out.print(summary);
    writeReport(summary);

    // A few requests a second even from a cold JVM on a loaded machine (57 in 5 s measured at
    // load 14); fewer means the fuzzer was stuck.
    assertTrue(
        report.requests() > 5 * budget.toSeconds(), "the fuzzer barely ran: " + report.requests());
    assertTrue(report.problems().isEmpty(), summary);
    assertEquals(List.of(), wedged, summary);
    assertEquals(0, stats.at("/readModel/skippedEvents").asLong(), summary);
  }

  /**
   * The pool agents that cannot serve a valid request now: each must answer GET, take an update and
   * a notification, and be claimed once.
   */
  private List<String> wedgedAgents() throws Exception {
    List<String> wedged = new ArrayList<>();
    Set<String> serving = new HashSet<>();
    int port = node.httpPort();
    for (int i = 0; i < HttpFuzzer.POOL; i++) {
      String id = HttpFuzzer.poolAgent(i);
      RawHttp.send(port, "POST", "/v1/agents/" + id + "/resume", null);
      Response put =
          RawHttp.send(
              port,
              "PUT",
              "/v1/agents/" + id,
              "{\"capabilities\": [], \"minActivationIntervalSeconds\": 0, \"maxInboxDepth\": 1000}");
      Response notify =
          RawHttp.send(
              port, "POST", "/v1/agents/" + id + "/notifications", "{\"type\": \"after-fuzz\"}");
      if ((put.status() != 200 && put.status() != 201) || notify.status() != 202) {
        wedged.add(id + " (PUT " + put.status() + ", notify " + notify + ")");
      } else {
        serving.add(id);
      }
    }
    // Every serving agent has unread work now: notification runners must get each of them.
    Set<String> left = new HashSet<>(serving);
    for (int i = 0; i < serving.size() * 4 && !left.isEmpty(); i++) {
      Response claim =
          RawHttp.send(
              port,
              "POST",
              "/v1/claims",
              "{\"runnerId\": \"sweeper\", \"mode\": \"notification\", \"waitSeconds\": 5,"
                  + " \"capabilities\": [\"code\", \"web\"]}");
      JsonNode body = JSON.readTree(claim.body());
      if (!"assigned".equals(body.path("status").asText())) {
        continue;
      }
      left.remove(body.at("/assignment/agentId").asText());
      RawHttp.send(
          port,
          "POST",
          "/v1/leases/" + body.at("/assignment/leaseId").asText() + "/complete",
          "{\"runnerId\": \"sweeper\"}");
    }
    left.forEach(id -> wedged.add(id + " (never claimed)"));
    return wedged;
  }

  /** Waits until the read model counts exactly the agents that answer GET; its stats then. */
  private JsonNode awaitReadModelCaughtUp() throws Exception {
    int port = node.httpPort();
    AtomicReference<JsonNode> stats = new AtomicReference<>();
    AtomicInteger live = new AtomicInteger();
    try {
      await()
          .atMost(Duration.ofSeconds(30))
          .pollDelay(Duration.ZERO)
          .pollInterval(Duration.ofMillis(250))
          .until(
              () -> {
                int alive = 0;
                for (int i = 0; i < HttpFuzzer.POOL; i++) {
                  if (RawHttp.send(port, "GET", "/v1/agents/" + HttpFuzzer.poolAgent(i), null)
                          .status()
                      == 200) {
                    alive++;
                  }
                }
                live.set(alive);
                stats.set(JSON.readTree(RawHttp.send(port, "GET", "/admin/stats", null).body()));
                return stats.get().at("/agents/registered").asInt() == alive
                    && stats.get().at("/agents/leased").asInt() == 0;
              });
    } catch (ConditionTimeoutException e) {
      // asserted below with the last figures
    }
    assertEquals(live.get(), stats.get().at("/agents/registered").asInt(), "read model: " + stats);
    return stats.get();
  }

  private void writeReport(String summary) throws IOException {
    Path dir = Path.of("target");
    Files.createDirectories(dir);
    Files.writeString(
        dir.resolve("fuzz-report-" + database.displayName().toLowerCase() + ".txt"), summary);
  }
}
