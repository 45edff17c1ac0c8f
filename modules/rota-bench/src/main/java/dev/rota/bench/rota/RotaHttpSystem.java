package dev.rota.bench.rota;

import com.fasterxml.jackson.databind.JsonNode;
import dev.rota.bench.system.BenchClock;
import dev.rota.bench.system.BenchDatabase;
import dev.rota.bench.system.BenchSystem;
import dev.rota.bench.system.Claim;
import dev.rota.bench.system.Completion;
import dev.rota.bench.system.InboxSeed;
import dev.rota.bench.system.RunnerListener;
import dev.rota.bench.system.RunnerSpec;
import dev.rota.bench.system.TrialShape;
import dev.rota.client.Assignment;
import dev.rota.client.CancellationToken;
import dev.rota.client.Outcome;
import dev.rota.client.RotaRunner;
import dev.rota.core.model.ActivationKind;
import dev.rota.core.model.RunnerMode;
import java.time.Duration;
import java.util.Arrays;
import java.util.EnumSet;
import java.util.HashMap;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.atomic.AtomicLong;

/**
 * {@code rota-http}: the same node as {@link RotaSystem} with no in-cluster runners; an external
 * runner of the SDK ({@link RotaRunner}) with R slots in the harness speaks the runner API of
 * docs/api.md over HTTP, each slot with its own keep-alive connection: long-poll {@code POST
 * /v1/claims}, wait out the activation time, {@code POST /v1/leases/{id}/complete}. A claim is
 * reported when its 200 arrives (the lease is committed by then), a completion when its 200 arrives
 * (the completion is committed by then).
 */
public final class RotaHttpSystem implements BenchSystem {

  /** How long a claim waits at the node for work; also bounds how long stopping takes. */
  static final int WAIT_SECONDS = 2;

  private static final Duration LEASE = Duration.ofSeconds(60);
  private static final Duration STOP_GRACE = Duration.ofSeconds(30);

  private final Map<String, Object> extraSettings;
  private final AtomicLong errors = new AtomicLong();
  private RotaRunner runner;
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
    Duration activationTime = spec.activationTime();
    runner =
        RotaRunner.builder(
                node.client(),
                activation -> {
                  if (!activationTime.isZero()) {
                    Thread.sleep(
                        activationTime.toMillis(), activationTime.toNanosPart() % 1_000_000);
                  }
                  return Outcome.complete();
                })
            .runnerId("bench-http")
            .mode(dev.rota.client.RunnerMode.valueOf(spec.mode().name()))
            .slots(spec.runners())
            .waitSeconds(WAIT_SECONDS)
            .lease(LEASE)
            .shutdownGrace(STOP_GRACE)
            .listener(new Reports(listener))
            .start();
  }

  /** Turns the runner's reports into the harness's claims and completions. */
  private final class Reports implements dev.rota.client.RunnerListener {
    private final RunnerListener listener;

    Reports(RunnerListener listener) {
      this.listener = listener;
    }

    @Override
    public void onClaimed(Assignment assignment) {
      listener.onClaim(
          new Claim(
              assignment.agentId(),
              ActivationKind.fromWire(assignment.kind()),
              assignment.notifications().size(),
              tokens(assignment),
              BenchClock.nowMicros()));
    }

    @Override
    public void onReported(Assignment assignment, Outcome outcome) {
      listener.onComplete(
          new Completion(
              assignment.agentId(),
              ActivationKind.fromWire(assignment.kind()),
              assignment.notifications().size(),
              BenchClock.nowMicros()));
    }

    @Override
    public void onCancelled(Assignment assignment, CancellationToken.Reason reason) {
      errors.incrementAndGet();
    }

    @Override
    public void onError(String what, RuntimeException error) {
      errors.incrementAndGet();
    }
  }

  private static long[] tokens(Assignment assignment) {
    long[] tokens = new long[assignment.notifications().size()];
    int n = 0;
    for (Assignment.Item notification : assignment.notifications()) {
      JsonNode token =
          notification.payload() == null ? null : notification.payload().get(BenchNode.TOKEN);
      if (token != null && token.canConvertToLong()) {
        tokens[n++] = token.asLong();
      }
    }
    return Arrays.copyOf(tokens, n);
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
    return errors.get();
  }

  /**
   * Stops claiming and lets running activations finish and report; an activation granted to a long
   * poll after this began is handed back (a snooze of 0 s), not abandoned.
   */
  @Override
  public void stopRunners() {
    if (runner != null) {
      runner.stop(STOP_GRACE);
      runner = null;
    }
  }

  @Override
  public void close() throws Exception {
    stopRunners();
    if (node != null) {
      node.close();
    }
  }
}
