package dev.rota.bench.workload;

import dev.rota.bench.metrics.Recorder;
import dev.rota.bench.system.AgentIds;
import dev.rota.bench.system.BenchClock;
import dev.rota.bench.system.BenchSystem;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.LockSupport;

/**
 * Publishes notifications at a fixed rate to uniformly random agents: notification i is due at
 * {@code start + i / rate}; several threads take the next due notification, so one slow publish
 * does not hold the schedule back. The token is stamped just before {@code publish} is called.
 */
final class RatePublisher {

  /** Publishing stops this much past its planned end if the system cannot keep up. */
  static final double GRACE = 1.2;

  /** What publishing achieved. */
  record Outcome(long planned, long published, long failed, double seconds, String firstError) {
    double achievedRate() {
      return published / seconds;
    }
  }

  /** Publishes one notification carrying {@code token}; throws when it is refused. */
  interface Publish {
    void publish(String agentId, long token) throws Exception;
  }

  /** Where send times go: a recorder in this JVM, or the output of a publisher process. */
  interface Sends {
    void sent(long token, long atMicros);

    void unsent(long token);
  }

  private final Publish system;
  private final Sends recorder;
  private final int agents;
  private final long seed;

  RatePublisher(BenchSystem system, Recorder recorder, int agents, long seed) {
    this(
        system::publish,
        new Sends() {
          @Override
          public void sent(long token, long atMicros) {
            recorder.sent(token, atMicros);
          }

          @Override
          public void unsent(long token) {
            recorder.unsent(token);
          }
        },
        agents,
        seed);
  }

  RatePublisher(Publish publish, Sends sends, int agents, long seed) {
    this.system = publish;
    this.recorder = sends;
    this.agents = agents;
    this.seed = seed;
  }

  /** How many notifications {@link #run} plans for {@code rate} held for {@code duration}. */
  static long planned(int rate, Duration duration) {
    return Math.max(1, Math.round(rate * (duration.toNanos() / 1e9)));
  }

  /**
   * Publishes {@code rate × duration} notifications with tokens from {@code firstToken} up, or as
   * many as the system accepts until {@link #GRACE} × duration has passed.
   */
  Outcome run(int rate, Duration duration, int threads, long firstToken)
      throws InterruptedException {
    long total = planned(rate, duration);
    double intervalNanos = 1e9 / rate;
    AtomicLong next = new AtomicLong();
    AtomicLong published = new AtomicLong();
    AtomicLong failed = new AtomicLong();
    AtomicReference<String> firstError = new AtomicReference<>();
    long startNanos = System.nanoTime();
    long deadlineNanos = startNanos + (long) (duration.toNanos() * GRACE);
    List<Thread> workers = new ArrayList<>();
    for (int t = 0; t < threads; t++) {
      Thread worker =
          new Thread(
              () -> {
                long i;
                while (System.nanoTime() < deadlineNanos && (i = next.getAndIncrement()) < total) {
                  long due = startNanos + (long) (i * intervalNanos);
                  long wait = due - System.nanoTime();
                  if (wait > 0) {
                    LockSupport.parkNanos(wait);
                  }
                  long token = firstToken + i;
                  String agent = AgentIds.id(new SplittableRandom(seed ^ token).nextInt(agents));
                  recorder.sent(token, BenchClock.nowMicros());
                  try {
                    system.publish(agent, token);
                    published.incrementAndGet();
                  } catch (Exception e) {
                    recorder.unsent(token);
                    failed.incrementAndGet();
                    firstError.compareAndSet(null, e.toString());
                  }
                }
              },
              "bench-publisher-" + t);
      worker.setDaemon(true);
      workers.add(worker);
      worker.start();
    }
    for (Thread worker : workers) {
      worker.join();
    }
    double seconds = (System.nanoTime() - startNanos) / 1e9;
    return new Outcome(total, published.get(), failed.get(), seconds, firstError.get());
  }
}
