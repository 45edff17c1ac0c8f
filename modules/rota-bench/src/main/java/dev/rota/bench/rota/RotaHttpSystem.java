package dev.rota.bench.rota;

import dev.rota.bench.system.BenchDatabase;
import dev.rota.bench.system.BenchSystem;
import dev.rota.bench.system.InboxSeed;
import dev.rota.bench.system.RunnerListener;
import dev.rota.bench.system.RunnerSpec;
import dev.rota.bench.system.TrialShape;
import dev.rota.core.model.RunnerMode;
import java.util.EnumSet;
import java.util.HashMap;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.atomic.AtomicLong;

/**
 * {@code rota-http}: the same node as {@link RotaSystem} with no in-cluster runners; an external
 * runner of the SDK ({@code RotaRunner}) with R slots, in a JVM of its own ({@link RunnerProcess}),
 * speaks the runner API of docs/api.md over HTTP, each slot with its own keep-alive connection:
 * long-poll {@code POST /v1/claims}, wait out the activation time, {@code POST
 * /v1/leases/{id}/complete}. A claim is reported when its 200 arrives (the lease is committed by
 * then), a completion when its 200 arrives (the completion is committed by then). The bench's JVM
 * therefore holds the node and the bench's counting only; the runners' CPU is {@link
 * #runnerCpuMillis()}.
 */
public final class RotaHttpSystem implements BenchSystem {

  private final Map<String, Object> extraSettings;
  private final AtomicLong errors = new AtomicLong();
  private RunnerProcess runners;
  private double stoppedRunnersCpuMillis;
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
  public void topUpNotifications(InboxSeed seed) throws Exception {
    node.deliverNotifications(seed);
  }

  @Override
  public void startRunners(RunnerSpec spec, RunnerListener listener) throws Exception {
    runners = RunnerProcess.start(node.apiBase(), spec, listener);
  }

  @Override
  public void publish(String agentId, long token) throws Exception {
    node.publish(agentId, token);
  }

  @Override
  public java.util.Optional<java.net.URI> publishEndpoint() {
    return java.util.Optional.of(node.apiBase());
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
    RunnerProcess running = runners;
    return errors.get() + (running == null ? 0 : running.errors());
  }

  @Override
  public double runnerCpuMillis() {
    RunnerProcess running = runners;
    return stoppedRunnersCpuMillis + (running == null ? 0 : running.cpuMillis());
  }

  /**
   * Stops claiming and lets running activations finish and report; an activation granted to a long
   * poll after this began is handed back (a snooze of 0 s), not abandoned.
   */
  @Override
  public void stopRunners() throws Exception {
    RunnerProcess running = runners;
    if (running == null) {
      return;
    }
    runners = null;
    long errorsSeen = running.errors();
    try {
      RunnerLines.Summary summary = running.stop();
      stoppedRunnersCpuMillis += summary.cpuMillis();
      errors.addAndGet(summary.errors());
    } catch (RuntimeException e) {
      errors.addAndGet(Math.max(1, errorsSeen));
      throw e;
    }
  }

  @Override
  public void close() throws Exception {
    try {
      stopRunners();
    } finally {
      if (node != null) {
        node.close();
      }
    }
  }
}
