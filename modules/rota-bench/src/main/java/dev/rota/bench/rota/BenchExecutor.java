package dev.rota.bench.rota;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import dev.rota.bench.system.BenchClock;
import dev.rota.bench.system.ClaimedActivation;
import dev.rota.bench.system.Completion;
import dev.rota.bench.system.RunnerListener;
import dev.rota.cluster.runner.Activation;
import dev.rota.cluster.runner.Executor;
import dev.rota.cluster.runner.ExecutorContext;
import dev.rota.cluster.runner.Outcome;
import dev.rota.core.model.Notification;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

/**
 * The in-cluster runners' executor in the bench: the {@code noop} executor's behaviour (complete
 * with {@code {}} after the activation time, on a timer, never a sleeping runner thread) plus
 * reporting to the harness. It tells {@link RunnerListener#onClaim} when a runner hands it an
 * activation (the lease is committed by then) and {@link RunnerListener#onComplete} when the agent
 * has acknowledged the completion ({@link Executor#reported}), i.e. once it is durable.
 *
 * <p>A node builds its executors from config by class name, so the harness finds its listener
 * through a static registry keyed by the pool's {@code executor-settings.bench-id}.
 */
public final class BenchExecutor implements Executor {

  /** What one trial's runners report to and how long their activations take. */
  static final class Hooks {
    volatile RunnerListener listener = NONE;
    volatile Duration activationTime = Duration.ZERO;
  }

  static final String BENCH_ID = "bench-id";
  private static final RunnerListener NONE =
      new RunnerListener() {
        @Override
        public void onClaim(ClaimedActivation claim) {}

        @Override
        public void onComplete(Completion completion) {}
      };
  private static final Map<String, Hooks> REGISTRY = new ConcurrentHashMap<>();

  /**
   * The activation time's timer: a thread of its own rather than Pekko's scheduler, whose 10 ms
   * ticks would stretch a 20 ms activation to up to 30 ms (the other systems sleep exactly T).
   */
  private static final ScheduledExecutorService TIMER =
      Executors.newSingleThreadScheduledExecutor(
          r -> {
            Thread t = new Thread(r, "rota-bench-activation-timer");
            t.setDaemon(true);
            return t;
          });

  static Hooks register(String benchId) {
    Hooks hooks = new Hooks();
    REGISTRY.put(benchId, hooks);
    return hooks;
  }

  static void unregister(String benchId) {
    REGISTRY.remove(benchId);
  }

  private final Hooks hooks;

  public BenchExecutor(ExecutorContext context) {
    String id = context.config().getString(BENCH_ID);
    this.hooks = REGISTRY.get(id);
    if (hooks == null) {
      throw new IllegalStateException("no bench registered as " + id);
    }
  }

  @Override
  public CompletionStage<Outcome> execute(Activation activation) {
    List<Notification> carried = activation.granted().notifications();
    hooks.listener.onClaim(
        new ClaimedActivation(
            activation.agentId(),
            activation.lease().kind(),
            carried.size(),
            tokensOf(carried),
            BenchClock.nowMicros()));
    Outcome done = Outcome.completed(JsonNodeFactory.instance.objectNode());
    Duration delay = hooks.activationTime;
    if (delay.isZero() || delay.isNegative()) {
      return CompletableFuture.completedFuture(done);
    }
    CompletableFuture<Outcome> result = new CompletableFuture<>();
    TIMER.schedule(() -> result.complete(done), delay.toNanos(), TimeUnit.NANOSECONDS);
    return result;
  }

  @Override
  public void reported(Activation activation, Outcome outcome) {
    if (outcome instanceof Outcome.Completed) {
      hooks.listener.onComplete(
          new Completion(
              activation.agentId(),
              activation.lease().kind(),
              activation.granted().notifications().size(),
              BenchClock.nowMicros()));
    }
  }

  /** The harness's tokens, from the payloads of published notifications (seeded ones have none). */
  static long[] tokensOf(List<Notification> notifications) {
    long[] tokens = new long[notifications.size()];
    int n = 0;
    for (Notification notification : notifications) {
      JsonNode token =
          notification.payload() == null ? null : notification.payload().get(BenchNode.TOKEN);
      if (token != null && token.canConvertToLong()) {
        tokens[n++] = token.asLong();
      }
    }
    return n == tokens.length ? tokens : java.util.Arrays.copyOf(tokens, n);
  }
}
