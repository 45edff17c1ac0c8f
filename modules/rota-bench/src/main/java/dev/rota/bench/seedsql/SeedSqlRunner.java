package dev.rota.bench.seedsql;

import dev.rota.bench.system.BenchClock;
import dev.rota.bench.system.BenchDatabase;
import dev.rota.bench.system.ClaimedActivation;
import dev.rota.bench.system.Completion;
import dev.rota.bench.system.RunnerListener;
import dev.rota.bench.system.RunnerSpec;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.concurrent.atomic.AtomicLong;

/**
 * One ADR-011 runner: a thread with its own connection that loops get_assignment → run (sleep the
 * activation time) → release, and polls when there is no work, as the seed's runners do.
 */
final class SeedSqlRunner implements Runnable {

  private final BenchDatabase database;
  private final RunnerSpec spec;
  private final RunnerListener listener;
  private final long idlePollMillis;
  private final AtomicLong errors;
  private volatile boolean running = true;

  SeedSqlRunner(
      BenchDatabase database,
      RunnerSpec spec,
      RunnerListener listener,
      long idlePollMillis,
      AtomicLong errors) {
    this.database = database;
    this.spec = spec;
    this.listener = listener;
    this.idlePollMillis = idlePollMillis;
    this.errors = errors;
  }

  void stop() {
    running = false;
  }

  @Override
  public void run() {
    while (running) {
      try (Connection connection = database.connect()) {
        loop(new SeedSqlCoordinator(connection));
      } catch (SQLException e) {
        errors.incrementAndGet();
        System.err.println("seed-sql runner: " + e.getMessage() + "; reconnecting");
        sleep(idlePollMillis);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return;
      }
    }
  }

  private void loop(SeedSqlCoordinator coordinator) throws SQLException, InterruptedException {
    while (running) {
      SeedSqlCoordinator.Assignment assignment = coordinator.assignment(spec.mode());
      if (assignment == null) {
        Thread.sleep(idlePollMillis);
        continue;
      }
      int carried = assignment.notificationIds().length;
      listener.onClaim(
          new ClaimedActivation(
              assignment.agentId(),
              assignment.kind(),
              carried,
              assignment.tokens(),
              BenchClock.nowMicros()));
      if (!spec.activationTime().isZero()) {
        Thread.sleep(spec.activationTime().toMillis());
      }
      try {
        coordinator.complete(assignment);
      } catch (SQLException e) {
        coordinator.abandon();
        throw e;
      }
      listener.onComplete(
          new Completion(assignment.agentId(), assignment.kind(), carried, BenchClock.nowMicros()));
    }
  }

  private static void sleep(long millis) {
    try {
      Thread.sleep(millis);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
