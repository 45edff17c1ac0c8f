package dev.rota.client;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * An external runner: N slots, each a thread that long-polls {@code POST /v1/claims} for its mode
 * and capabilities, runs the {@link ActivationHandler} on the activation it gets, and reports the
 * handler's {@link Outcome} with its next claim in the same request (one request per turn). While a
 * handler runs its lease is heartbeated every third of the lease (by default); if the server
 * answers 410 or the lease runs out without a successful heartbeat, the handler is stopped: its
 * {@link CancellationToken} is cancelled and its thread interrupted, and nothing is reported
 * (another runner may hold the agent by then).
 *
 * <pre>{@code
 * RotaClient client = RotaClient.builder(URI.create("http://localhost:8080")).build();
 * try (RotaRunner runner = RotaRunner.builder(client, activation -> {
 *         reply(activation.agentId(), activation.assignment().notifications());
 *         return Outcome.complete();
 *       })
 *     .runnerId("reviewers").mode(RunnerMode.HYBRID).capabilities("code")
 *     .slots(4).lease(Duration.ofMinutes(5))
 *     .start()) {
 *   Thread.currentThread().join(); // until the process is told to stop
 * }
 * }</pre>
 *
 * <p>{@link #close()} (or {@link #stop(Duration)}) stops gracefully: no slot claims again, running
 * handlers get the grace period to finish and report, and those still running after it are
 * cancelled ({@link CancellationToken.Reason#SHUTDOWN}) and their leases handed back (a snooze of 0
 * s: no attempt is used up, the agent is at once eligible again). A slot waiting in a long poll
 * finishes it first, so stopping can take up to {@code waitSeconds} longer; an activation granted
 * to it then is handed back. When {@code close} returns, every thread the runner started has ended,
 * unless a handler ignores both the interrupt and its token for {@code waitSeconds} + 30 s after
 * the grace period: its slot thread is then left to end by itself and reported to the listener.
 *
 * <p>A runner that knows it cannot do good work (a revoked key, a full disk) says so with {@link
 * #reportHealth}: its claims are answered with no work, and its slots wait as the server says
 * ({@link RunnerListener#onRefused}) until the degradation ends or it reports healthy. The server
 * also degrades a runner whose activations fail or expire several times in a row, and an admin may
 * drain it; the slots wait the same way.
 */
public final class RotaRunner implements AutoCloseable {
  private static final AtomicInteger INSTANCES = new AtomicInteger();

  // Package-private fields: what the runner's Slots share.
  final RotaClient client;
  final ActivationHandler handler;
  final RunnerListener listener;
  private final String runnerId;
  final RunnerMode mode;
  final Set<String> capabilities;
  private final int slots;
  final Integer leaseSeconds;
  final int waitSeconds;
  final double heartbeatFraction;
  final Duration heartbeatInterval;
  private final Duration shutdownGrace;
  private final List<Thread> slotThreads = new ArrayList<>();
  private final List<String> slotIds = new ArrayList<>();
  final AtomicInteger healthyReports = new AtomicInteger();
  final List<LeaseKeeper> running = new ArrayList<>();
  final CountDownLatch stopping = new CountDownLatch(1);
  final ScheduledExecutorService timers;

  /** The node refused a report's {@code next} (it predates it): slots report and claim apart. */
  volatile boolean nextRefused;

  private RotaRunner(Builder b) {
    this.client = b.client;
    this.handler = b.handler;
    this.listener = new GuardedListener(b.listener);
    this.runnerId = b.runnerId;
    this.mode = b.mode;
    this.capabilities = b.capabilities;
    this.slots = b.slots;
    this.leaseSeconds = b.leaseSeconds;
    this.waitSeconds = b.waitSeconds;
    this.heartbeatFraction = b.heartbeatFraction;
    this.heartbeatInterval = b.heartbeatInterval;
    this.shutdownGrace = b.shutdownGrace;
    int instance = INSTANCES.incrementAndGet();
    AtomicInteger timerThreads = new AtomicInteger();
    ScheduledThreadPoolExecutor executor =
        new ScheduledThreadPoolExecutor(
            Math.min(slots + 1, 8),
            task -> {
              Thread t =
                  new Thread(
                      task, "rota-runner-" + instance + "-lease-" + timerThreads.incrementAndGet());
              t.setDaemon(true);
              return t;
            });
    executor.setRemoveOnCancelPolicy(true);
    this.timers = executor;
    for (int i = 1; i <= slots; i++) {
      String slotId = slots == 1 ? runnerId : runnerId + "-" + i;
      slotIds.add(slotId);
      Slot slot = new Slot(this, slotId);
      Thread t = new Thread(slot::loop, "rota-runner-" + instance + "-slot-" + i);
      t.setDaemon(true);
      slotThreads.add(t);
    }
  }

  /** A runner of {@code handler} that talks to the server through {@code client}. */
  public static Builder builder(RotaClient client, ActivationHandler handler) {
    return new Builder(client, handler);
  }

  /** The base runner id; slot i claims as {@code <runnerId>-i} when there are several slots. */
  public String runnerId() {
    return runnerId;
  }

  /** How many handlers are running now. */
  public int busySlots() {
    synchronized (running) {
      return running.size();
    }
  }

  private RotaRunner startThreads() {
    slotThreads.forEach(Thread::start);
    return this;
  }

  boolean isStopping() {
    return stopping.getCount() == 0;
  }

  /**
   * Reports this runner's health for every slot (each slot claims under its own runner id):
   * degraded for {@code duration} with {@code reason}, e.g. when the handler finds its model key
   * revoked or its disk full, so that Rota gives it no work meanwhile; or healthy again ({@code
   * degraded} false), which also wakes slots waiting out a degradation.
   */
  public void reportHealth(boolean degraded, String reason, Duration duration) {
    for (String slotId : slotIds) {
      client.reportHealth(slotId, degraded, reason, duration);
    }
    if (!degraded) {
      healthyReports.incrementAndGet();
    }
  }

  /**
   * Stops claiming, gives running handlers {@code grace} to finish and report, then cancels the
   * rest and hands their leases back; returns when every thread of the runner has ended.
   */
  public void stop(Duration grace) {
    stopping.countDown();
    long deadline = System.nanoTime() + grace.toNanos();
    awaitHandlers(deadline);
    List<LeaseKeeper> left;
    synchronized (running) {
      left = List.copyOf(running);
    }
    for (LeaseKeeper keeper : left) {
      keeper.cancel(CancellationToken.Reason.SHUTDOWN);
    }
    // A slot ends once its long poll returns and its handler heeds the cancellation; a handler
    // that ignores both is left running (its thread is a daemon) rather than blocking forever.
    long joinDeadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(waitSeconds + 30L);
    for (Thread t : slotThreads) {
      joinUntil(t, joinDeadline);
      if (t.isAlive()) {
        listener.onError(
            "stop", new IllegalStateException(t.getName() + ": its handler ignores cancellation"));
      }
    }
    timers.shutdownNow();
    try {
      timers.awaitTermination(30, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  private void awaitHandlers(long deadline) {
    while (System.nanoTime() < deadline) {
      if (busySlots() == 0) {
        return;
      }
      try {
        Thread.sleep(20);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return;
      }
    }
  }

  private static void joinUntil(Thread t, long deadlineNanos) {
    long left = deadlineNanos - System.nanoTime();
    try {
      t.join(Math.max(1, TimeUnit.NANOSECONDS.toMillis(left)));
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  /** {@link #stop(Duration)} with the builder's grace period (30 s by default). */
  @Override
  public void close() {
    stop(shutdownGrace);
  }

  /** Settings of a {@link RotaRunner}; {@link #start()} builds and starts it. */
  public static final class Builder {
    private final RotaClient client;
    private final ActivationHandler handler;
    private RunnerListener listener = new RunnerListener() {};
    private String runnerId = "runner-" + UUID.randomUUID().toString().substring(0, 8);
    private RunnerMode mode = RunnerMode.HYBRID;
    private Set<String> capabilities = Set.of();
    private int slots = 1;
    private Integer leaseSeconds;
    private int waitSeconds = 20;
    private double heartbeatFraction = 1.0 / 3;
    private Duration heartbeatInterval;
    private Duration shutdownGrace = Duration.ofSeconds(30);

    private Builder(RotaClient client, ActivationHandler handler) {
      this.client = client;
      this.handler = handler;
    }

    /** The id the server knows this runner by (default {@code runner-<random>}). */
    public Builder runnerId(String runnerId) {
      this.runnerId = runnerId;
      return this;
    }

    /** {@code HYBRID} by default. */
    public Builder mode(RunnerMode mode) {
      this.mode = mode;
      return this;
    }

    /** What this runner offers; it gets only agents whose requirements it covers. */
    public Builder capabilities(String... capabilities) {
      this.capabilities = Set.of(capabilities);
      return this;
    }

    /** How many activations run at once (default 1); each slot is one thread. */
    public Builder slots(int slots) {
      if (slots < 1) {
        throw new IllegalArgumentException("slots must be at least 1");
      }
      this.slots = slots;
      return this;
    }

    /** The lease asked for (5 s to 2 h; the server's default otherwise). */
    public Builder lease(Duration lease) {
      this.leaseSeconds = Math.toIntExact(lease.toSeconds());
      return this;
    }

    /** How long a claim waits at the server for work (0–60 s, default 20). */
    public Builder waitSeconds(int waitSeconds) {
      this.waitSeconds = waitSeconds;
      return this;
    }

    /** Heartbeat every {@code fraction} of the lease (default 1/3). */
    public Builder heartbeatFraction(double fraction) {
      if (fraction <= 0 || fraction >= 1) {
        throw new IllegalArgumentException("heartbeat fraction must be in (0, 1)");
      }
      this.heartbeatFraction = fraction;
      this.heartbeatInterval = null;
      return this;
    }

    /** A fixed heartbeat interval instead of a fraction of the lease. */
    public Builder heartbeatInterval(Duration interval) {
      this.heartbeatInterval = interval;
      return this;
    }

    /** How long {@link RotaRunner#close()} lets running handlers finish (default 30 s). */
    public Builder shutdownGrace(Duration grace) {
      this.shutdownGrace = grace;
      return this;
    }

    public Builder listener(RunnerListener listener) {
      this.listener = listener;
      return this;
    }

    /** Builds the runner and starts its slots. */
    public RotaRunner start() {
      return new RotaRunner(this).startThreads();
    }
  }
}
