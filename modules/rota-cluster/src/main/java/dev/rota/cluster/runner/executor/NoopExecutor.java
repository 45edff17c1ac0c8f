package dev.rota.cluster.runner.executor;

import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import dev.rota.cluster.runner.Activation;
import dev.rota.cluster.runner.Executor;
import dev.rota.cluster.runner.ExecutorContext;
import dev.rota.cluster.runner.Outcome;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.TimeUnit;

/**
 * Completes every activation with {@code {}}, after {@code rota.runners.noop.delay} (default none):
 * for benchmarks of the scheduler itself, fairness runs and demos. The delay is a timer, not a
 * sleeping thread.
 */
public final class NoopExecutor implements Executor {
  private final Duration delay;

  public NoopExecutor(ExecutorContext context) {
    this(context.config().hasPath("delay") ? context.config().getDuration("delay") : Duration.ZERO);
  }

  public NoopExecutor(Duration delay) {
    this.delay = delay;
  }

  @Override
  public CompletionStage<Outcome> execute(Activation activation) {
    Outcome done = Outcome.completed(JsonNodeFactory.instance.objectNode());
    if (delay.isZero() || delay.isNegative()) {
      return CompletableFuture.completedFuture(done);
    }
    return CompletableFuture.supplyAsync(
        () -> done, CompletableFuture.delayedExecutor(delay.toNanos(), TimeUnit.NANOSECONDS));
  }
}
