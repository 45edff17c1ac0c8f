package dev.rota.client;

/** The user's listener, whose exceptions never stop a slot or a lease keeper. */
record GuardedListener(RunnerListener delegate) implements RunnerListener {
  private static final System.Logger LOG = System.getLogger(RotaRunner.class.getName());

  @Override
  public void onClaimed(Assignment assignment) {
    guard(() -> delegate.onClaimed(assignment));
  }

  @Override
  public void onReported(Assignment assignment, Outcome outcome) {
    guard(() -> delegate.onReported(assignment, outcome));
  }

  @Override
  public void onCancelled(Assignment assignment, CancellationToken.Reason reason) {
    guard(() -> delegate.onCancelled(assignment, reason));
  }

  @Override
  public void onRefused(String slotId, String reason) {
    guard(() -> delegate.onRefused(slotId, reason));
  }

  @Override
  public void onError(String what, RuntimeException error) {
    guard(() -> delegate.onError(what, error));
  }

  private static void guard(Runnable call) {
    try {
      call.run();
    } catch (RuntimeException e) {
      LOG.log(System.Logger.Level.WARNING, "runner listener failed", e);
    }
  }
}
