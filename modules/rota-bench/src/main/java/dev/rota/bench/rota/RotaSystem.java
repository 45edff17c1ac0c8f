package dev.rota.bench.rota;

import dev.rota.bench.system.BenchDatabase;
import dev.rota.bench.system.BenchSystem;
import dev.rota.bench.system.InboxSeed;
import dev.rota.bench.system.RunnerListener;
import dev.rota.bench.system.RunnerSpec;
import dev.rota.bench.system.TrialShape;
import dev.rota.cluster.readmodel.Counter;
import dev.rota.cluster.runner.RunnerPool;
import dev.rota.core.model.RunnerMode;
import java.time.Duration;
import java.util.EnumSet;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.ActorSystem;
import org.apache.pekko.actor.typed.javadsl.AskPattern;
import org.apache.pekko.actor.typed.receptionist.Receptionist;

/**
 * {@code rota}: one in-process Rota node on the trial's PostgreSQL, with in-cluster runners whose
 * executor ({@link BenchExecutor}) completes every activation after the activation time and reports
 * to the harness. The node starts with its runner pool at zero; {@link #startRunners} scales it to
 * R, {@link #stopRunners} drains it (activations in flight are completed first).
 */
public final class RotaSystem implements BenchSystem {

  static final String POOL = "bench";
  private static final Duration ASK = Duration.ofSeconds(30);

  private final Map<String, Object> extraSettings;
  private final String benchId = UUID.randomUUID().toString();
  private BenchExecutor.Hooks hooks;
  private BenchNode node;
  private ActorRef<RunnerPool.Command> pool;

  /** {@code extraSettings}: node settings on top of the bench's (from {@code --system-option}). */
  public RotaSystem(Map<String, Object> extraSettings) {
    this.extraSettings = Map.copyOf(extraSettings);
  }

  @Override
  public Set<RunnerMode> supportedModes() {
    return EnumSet.allOf(RunnerMode.class);
  }

  @Override
  public void setUp(BenchDatabase database, TrialShape shape) throws Exception {
    hooks = BenchExecutor.register(benchId);
    int runners = shape.runners().runners();
    Map<String, Object> settings = new HashMap<>();
    settings.put("rota.runners.enabled", true);
    settings.put("rota.runners.max-per-node", Math.max(16, runners));
    settings.put(
        "rota.runners.pools",
        List.of(
            Map.of(
                "name",
                POOL,
                "count",
                0,
                "min",
                0,
                "max",
                runners,
                "mode",
                shape.runners().mode().wireName(),
                "executor",
                BenchExecutor.class.getName(),
                "executor-settings",
                Map.of(BenchExecutor.BENCH_ID, benchId))));
    settings.putAll(extraSettings);
    node = BenchNode.start(database, settings);
    pool = findPool(node.system());
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
    hooks.activationTime = spec.activationTime();
    hooks.listener = listener;
    RunnerPool.SetDesiredReply reply =
        AskPattern.<RunnerPool.Command, RunnerPool.SetDesiredReply>ask(
                pool,
                replyTo -> new RunnerPool.SetDesired(POOL, spec.runners(), replyTo),
                ASK,
                node.system().scheduler())
            .toCompletableFuture()
            .get(ASK.toSeconds(), TimeUnit.SECONDS);
    if (!(reply instanceof RunnerPool.DesiredSet set) || set.desired() != spec.runners()) {
      throw new IllegalStateException("runner pool answered " + reply);
    }
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
    try {
      return node.counter(Counter.ACTIVATIONS_FAILED.key())
          + node.counter(Counter.ACTIVATIONS_EXPIRED.key());
    } catch (Exception e) {
      return -1;
    }
  }

  @Override
  public void stopRunners() throws Exception {
    if (pool == null) {
      return;
    }
    AskPattern.<RunnerPool.Command, RunnerPool.Drained>ask(
            pool,
            replyTo -> new RunnerPool.Drain(Duration.ofSeconds(10), replyTo),
            ASK,
            node.system().scheduler())
        .toCompletableFuture()
        .get(ASK.toSeconds(), TimeUnit.SECONDS);
  }

  @Override
  public void close() throws Exception {
    try {
      if (node != null) {
        node.close();
      }
    } finally {
      BenchExecutor.unregister(benchId);
    }
  }

  /** The node's runner pool, as it registered with the receptionist. */
  private static ActorRef<RunnerPool.Command> findPool(ActorSystem<?> system) throws Exception {
    long deadline = System.nanoTime() + ASK.toNanos();
    while (true) {
      Receptionist.Listing listing =
          AskPattern.<Receptionist.Command, Receptionist.Listing>ask(
                  system.receptionist(),
                  replyTo -> Receptionist.find(RunnerPool.SERVICE_KEY, replyTo),
                  ASK,
                  system.scheduler())
              .toCompletableFuture()
              .get(ASK.toSeconds(), TimeUnit.SECONDS);
      var pools = listing.getServiceInstances(RunnerPool.SERVICE_KEY);
      if (!pools.isEmpty()) {
        return pools.iterator().next();
      }
      if (System.nanoTime() > deadline) {
        throw new IllegalStateException("the node's runner pool did not register");
      }
      Thread.sleep(20);
    }
  }
}
