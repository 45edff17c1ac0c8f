package dev.rota.server;

import com.fasterxml.jackson.databind.JsonNode;
import dev.rota.server.testing.NodeHttp;
import java.net.http.HttpResponse;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The load a backup is taken under ({@link BackupDrillContract}): agents in two tenants, two
 * producers notifying them, the node's in-cluster runners serving the agents that require no
 * capability, and a runner over HTTP that claims the {@code fx-stuck} agents with 5 s leases and
 * never reports, so leases are always held. Before the load: a tenant with an admin's weight, an
 * agent with a schedule, and dead letters.
 */
final class BackupDrillLoad implements AutoCloseable {
  static final String ACME = "acme";
  static final int ACME_WEIGHT = 2;

  private final NodeHttp http;
  private final List<String> notified = new ArrayList<>();
  private final AtomicBoolean running = new AtomicBoolean(true);
  private final AtomicLong accepted = new AtomicLong();
  private final AtomicLong claimedByStuckRunner = new AtomicLong();
  private final ExecutorService threads = Executors.newFixedThreadPool(3);
  private final List<Future<?>> loops = new ArrayList<>();

  BackupDrillLoad(NodeHttp http) {
    this.http = http;
  }

  /** Creates what the load works on; then {@link #start()}. */
  void prepare() {
    http.json("PUT", "/admin/tenants/" + ACME, "{\"weight\": " + ACME_WEIGHT + "}", 201);
    for (String tenant : List.of("default", ACME)) {
      for (int i = 0; i < 6; i++) {
        register(tenant, "busy-" + i, "{}");
        notified.add(path(tenant, "busy-" + i));
      }
      for (int i = 0; i < 3; i++) {
        register(tenant, "stuck-" + i, "{\"capabilities\": [\"fx-stuck\"], \"maxAttempts\": 10}");
        notified.add(path(tenant, "stuck-" + i));
      }
    }
    register(
        "default",
        "scheduled",
        "{\"capabilities\": [\"fx-scheduled\"], \"schedules\": [{\"name\": \"yearly\","
            + " \"cron\": \"0 3 1 1 *\", \"timezone\": \"Europe/Berlin\", \"payload\": {}}]}");
    register(ACME, "dead", "{\"capabilities\": [\"fx-dead\"], \"maxAttempts\": 1}");
    for (int i = 0; i < 3; i++) {
      notify(path(ACME, "dead"));
    }
    JsonNode claim =
        http.json(
            "POST",
            "/v1/claims",
            "{\"runnerId\": \"drill-failing\", \"mode\": \"notification\","
                + " \"capabilities\": [\"fx-dead\"], \"waitSeconds\": 10}",
            200);
    String leaseId = claim.at("/assignment/leaseId").asText();
    http.json(
        "POST",
        "/v1/leases/" + leaseId + "/fail",
        "{\"runnerId\": \"drill-failing\", \"error\": \"drill\", \"action\": \"cancel\"}",
        200);
  }

  void start() {
    for (int i = 0; i < 2; i++) {
      loops.add(threads.submit(this::produce));
    }
    loops.add(threads.submit(this::holdLeases));
  }

  long accepted() {
    return accepted.get();
  }

  long claimedByStuckRunner() {
    return claimedByStuckRunner.get();
  }

  /** Stops the load and waits for its threads, failing if one of them failed. */
  @Override
  public void close() throws Exception {
    running.set(false);
    threads.shutdown();
    if (!threads.awaitTermination(30, TimeUnit.SECONDS)) {
      throw new IllegalStateException("the load did not stop");
    }
    for (Future<?> loop : loops) {
      loop.get();
    }
  }

  private void produce() {
    while (running.get()) {
      notify(notified.get(ThreadLocalRandom.current().nextInt(notified.size())));
    }
  }

  private void holdLeases() {
    while (running.get()) {
      JsonNode answer =
          http.json(
              "POST",
              "/v1/claims",
              "{\"runnerId\": \"drill-stuck\", \"mode\": \"notification\","
                  + " \"capabilities\": [\"fx-stuck\"], \"waitSeconds\": 1, \"leaseSeconds\": 5}",
              200);
      if (answer.get("status").asText().equals("assigned")) {
        claimedByStuckRunner.incrementAndGet();
      }
    }
  }

  private void notify(String agentPath) {
    int query = agentPath.indexOf('?');
    String path =
        query < 0
            ? agentPath + "/notifications"
            : agentPath.substring(0, query) + "/notifications" + agentPath.substring(query);
    HttpResponse<String> answer =
        http.send("POST", path, "{\"type\": \"job\", \"payload\": {\"drill\": true}}");
    if (answer.statusCode() == 202) {
      accepted.incrementAndGet();
    } else if (answer.statusCode() != 429) {
      throw new IllegalStateException(path + " answered " + answer.statusCode() + answer.body());
    }
  }

  private void register(String tenant, String agentId, String config) {
    http.json("PUT", path(tenant, agentId), config, 201);
  }

  static String path(String tenant, String agentId) {
    return "/v1/agents/" + agentId + ("default".equals(tenant) ? "" : "?tenant=" + tenant);
  }
}
