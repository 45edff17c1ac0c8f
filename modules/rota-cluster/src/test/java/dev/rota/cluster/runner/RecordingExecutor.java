package dev.rota.cluster.runner;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

/**
 * Wraps a real executor and records what the runner gave it and what came back, so tests can assert
 * the outcome an executor produced as well as its effect on the agent. The runner's cancellation
 * reaches the wrapped executor unchanged.
 */
final class RecordingExecutor implements Executor {
  final LinkedBlockingQueue<Activation> activations = new LinkedBlockingQueue<>();
  final LinkedBlockingQueue<Outcome> outcomes = new LinkedBlockingQueue<>();
  final LinkedBlockingQueue<CompletableFuture<Outcome>> runs = new LinkedBlockingQueue<>();
  private final Executor inner;

  RecordingExecutor(Executor inner) {
    this.inner = inner;
  }

  /** An executor that never finishes on its own: only cancellation ends its runs. */
  static RecordingExecutor hanging() {
    return new RecordingExecutor(activation -> new CompletableFuture<>());
  }

  @Override
  public CompletionStage<Outcome> execute(Activation activation) {
    activations.add(activation);
    CompletableFuture<Outcome> run = inner.execute(activation).toCompletableFuture();
    runs.add(run);
    run.whenComplete(
        (outcome, failure) -> {
          if (outcome != null) {
            outcomes.add(outcome);
          }
        });
    return run;
  }

  Outcome nextOutcome(Duration within) throws InterruptedException {
    Outcome outcome = outcomes.poll(within.toMillis(), TimeUnit.MILLISECONDS);
    if (outcome == null) {
      throw new AssertionError("no outcome within " + within);
    }
    return outcome;
  }

  Activation nextActivation(Duration within) throws InterruptedException {
    Activation activation = activations.poll(within.toMillis(), TimeUnit.MILLISECONDS);
    if (activation == null) {
      throw new AssertionError("no activation within " + within);
    }
    return activation;
  }
}
