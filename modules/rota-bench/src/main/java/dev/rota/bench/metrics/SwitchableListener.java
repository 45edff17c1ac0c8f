package dev.rota.bench.metrics;

import dev.rota.bench.system.ClaimedActivation;
import dev.rota.bench.system.Completion;
import dev.rota.bench.system.RunnerListener;

/** Forwards to the current phase's recorder, so one set of runners can serve several phases. */
public final class SwitchableListener implements RunnerListener {

  private volatile RunnerListener target;

  public SwitchableListener(RunnerListener initial) {
    this.target = initial;
  }

  public void switchTo(RunnerListener next) {
    this.target = next;
  }

  @Override
  public void onClaim(ClaimedActivation claim) {
    target.onClaim(claim);
  }

  @Override
  public void onComplete(Completion completion) {
    target.onComplete(completion);
  }
}
