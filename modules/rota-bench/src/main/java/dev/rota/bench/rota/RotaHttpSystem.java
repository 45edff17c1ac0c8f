package dev.rota.bench.rota;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.rota.bench.system.BenchClock;
import dev.rota.bench.system.BenchDatabase;
import dev.rota.bench.system.BenchSystem;
import dev.rota.bench.system.Claim;
import dev.rota.bench.system.Completion;
import dev.rota.bench.system.InboxSeed;
import dev.rota.bench.system.RunnerListener;
import dev.rota.bench.system.RunnerSpec;
import dev.rota.bench.system.TrialShape;
import dev.rota.core.model.ActivationKind;
import dev.rota.core.model.RunnerMode;
import java.net.URI;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.atomic.AtomicLong;

/**
 * {@code rota-http}: the same node as {@link RotaSystem} with no in-cluster runners; R external
 * runner threads in the harness speak the runner API of API.md over HTTP with their own keep-alive
 * connections ({@link HttpCalls}): long-poll {@code POST /v1/claims}, wait out the activation time,
 * {@code POST /v1/leases/{id}/complete}. A claim is reported when its 200 arrives (the lease is
 * committed by then), a completion when its 200 arrives (the completion is committed by then).
 */
public final class RotaHttpSystem implements BenchSystem {

  /** How long a claim waits at the node for work; also bounds how long stopping takes. */
  static final int WAIT_SECONDS = 2;

  private static final ObjectMapper JSON = new ObjectMapper();
  private static final Duration READ_TIMEOUT = Duration.ofSeconds(WAIT_SECONDS + 30);

  private final Map<String, Object> extraSettings;
  private final AtomicLong errors = new AtomicLong();
  private final List<Thread> runners = new ArrayList<>();
  private volatile boolean running;
  private BenchNode node;

  public RotaHttpSystem(Map<String, Object> extraSettings) {
    this.extraSettings = Map.copyOf(extraSettings);
  }

  @Override
  public Set<RunnerMode> supportedModes() {
    return EnumSet.allOf(RunnerMode.class);
  }

  @Override
  public void setUp(BenchDatabase database, TrialShape shape) throws Exception {
    Map<String, Object> settings = new HashMap<>();
    settings.put("rota.runners.enabled", false);
    settings.putAll(extraSettings);
    node = BenchNode.start(database, settings);
  }

  @Override
  public void seedAgents(int count) throws Exception {
    node.registerAgents(count);
  }

  @Override
  public void seedNotifications(InboxSeed seed) throws Exception {
    node.seedNotifications(seed);
  }

  @Override
  public void startRunners(RunnerSpec spec, RunnerListener listener) {
    running = true;
    for (int i = 0; i < spec.runners(); i++) {
      String runnerId = "bench-http-" + (i + 1);
      Thread thread = new Thread(() -> runLoop(runnerId, spec, listener), runnerId);
      thread.setDaemon(true);
      runners.add(thread);
      thread.start();
    }
  }

  private void runLoop(String runnerId, RunnerSpec spec, RunnerListener listener) {
    URI claims = node.apiBase().resolve("v1/claims");
    String claimBody =
        "{\"runnerId\":\""
            + runnerId
            + "\",\"mode\":\""
            + spec.mode().wireName()
            + "\",\"capabilities\":[],\"waitSeconds\":"
            + WAIT_SECONDS
            + ",\"leaseSeconds\":60}";
    while (running) {
      try {
        HttpCalls.Response claimed = HttpCalls.post(claims, claimBody, READ_TIMEOUT);
        if (claimed.status() != 200) {
          errors.incrementAndGet();
          Thread.sleep(100);
          continue;
        }
        JsonNode answer = JSON.readTree(claimed.body());
        if (!"assigned".equals(answer.path("status").asText())) {
          continue; // none (the wait ran out) or paused: ask again
        }
        // An activation granted after stopRunners began still completes: nothing is abandoned.
        execute(answer.path("assignment"), spec, listener);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return;
      } catch (Exception e) {
        errors.incrementAndGet();
      }
    }
  }

  private void execute(JsonNode assignment, RunnerSpec spec, RunnerListener listener)
      throws Exception {
    String agentId = assignment.path("agentId").asText();
    ActivationKind kind = ActivationKind.fromWire(assignment.path("kind").asText());
    JsonNode notifications = assignment.path("notifications");
    long[] tokens = new long[notifications.size()];
    int n = 0;
    for (JsonNode notification : notifications) {
      JsonNode token = notification.path("payload").path(BenchNode.TOKEN);
      if (token.canConvertToLong()) {
        tokens[n++] = token.asLong();
      }
    }
    listener.onClaim(
        new Claim(
            agentId,
            kind,
            notifications.size(),
            java.util.Arrays.copyOf(tokens, n),
            BenchClock.nowMicros()));
    if (!spec.activationTime().isZero()) {
      Thread.sleep(
          spec.activationTime().toMillis(), spec.activationTime().toNanosPart() % 1_000_000);
    }
    String leaseId = assignment.path("leaseId").asText();
    HttpCalls.Response completed =
        HttpCalls.post(
            node.apiBase()
                .resolve(
                    "v1/leases/"
                        + URLEncoder.encode(leaseId, StandardCharsets.UTF_8)
                        + "/complete"),
            "{}",
            READ_TIMEOUT);
    if (completed.status() != 200) {
      errors.incrementAndGet();
      return;
    }
    listener.onComplete(
        new Completion(agentId, kind, notifications.size(), BenchClock.nowMicros()));
  }

  @Override
  public void publish(String agentId, long token) throws Exception {
    node.publish(agentId, token);
  }

  @Override
  public long unread() throws Exception {
    return node.unread();
  }

  @Override
  public Map<String, Object> internals() {
    return node == null ? Map.of() : node.internals();
  }

  @Override
  public long errors() {
    return errors.get();
  }

  @Override
  public void stopRunners() throws InterruptedException {
    running = false;
    for (Thread thread : runners) {
      thread.join(READ_TIMEOUT.toMillis() + 5_000);
    }
    runners.clear();
  }

  @Override
  public void close() throws Exception {
    stopRunners();
    if (node != null) {
      node.close();
    }
  }
}
