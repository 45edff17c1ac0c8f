package dev.rota.bench.metrics;

import dev.rota.bench.system.AgentIds;
import dev.rota.bench.system.ClaimedActivation;
import dev.rota.bench.system.Completion;
import dev.rota.bench.system.RunnerListener;
import dev.rota.core.model.ActivationKind;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;
import org.HdrHistogram.Histogram;

/**
 * Counts what runners report and measures notification→claim latency: the harness stamps each
 * published token just before {@code publish}, and the claim that carries it closes the interval.
 * Optionally tracks per-agent completions for fairness.
 */
public final class Recorder implements RunnerListener {

  private static final long MAX_LATENCY_MICROS = 3_600_000_000L;

  private final ConcurrentHashMap<Long, Long> sentAtMicros = new ConcurrentHashMap<>();
  private final Histogram latencyMicros = new Histogram(MAX_LATENCY_MICROS, 3);
  private final LongAdder claims = new LongAdder();
  private final LongAdder activations = new LongAdder();
  private final LongAdder inboxActivations = new LongAdder();
  private final LongAdder explorationActivations = new LongAdder();
  private final LongAdder notifications = new LongAdder();
  private final LongAdder tokensClaimed = new LongAdder();
  private final LongAdder unknownTokens = new LongAdder();
  private final AtomicLong firstClaimMicros = new AtomicLong();
  private final AtomicLong lastCompletionMicros = new AtomicLong();
  private final FairnessTracker fairness;

  public Recorder() {
    this(null);
  }

  public Recorder(FairnessTracker fairness) {
    this.fairness = fairness;
  }

  /**
   * Sends reported by another process arrive after the fact, possibly after the claim that carried
   * them: such claims wait here, claim time by token, until their send is reported.
   */
  private final ConcurrentHashMap<Long, Long> claimedBeforeSent = new ConcurrentHashMap<>();

  private volatile boolean lateSends;

  /** Whether send times may be reported after their claims (a publisher process). */
  public void expectLateSends(boolean late) {
    this.lateSends = late;
  }

  /** Call just before publishing the notification that carries {@code token}. */
  public void sent(long token, long atMicros) {
    if (lateSends) {
      synchronized (claimedBeforeSent) {
        Long claimedAt = claimedBeforeSent.remove(token);
        if (claimedAt != null) {
          tokensClaimed.increment();
          record(Math.max(0, claimedAt - atMicros));
          return;
        }
        sentAtMicros.put(token, atMicros);
      }
      return;
    }
    sentAtMicros.put(token, atMicros);
  }

  /** Forget a token whose publish failed, so it is not counted as unclaimed. */
  public void unsent(long token) {
    sentAtMicros.remove(token);
    claimedBeforeSent.remove(token);
  }

  private void record(long latency) {
    synchronized (latencyMicros) {
      latencyMicros.recordValue(Math.min(latency, MAX_LATENCY_MICROS));
    }
  }

  /**
   * Ends the latency measurement: tokens still unclaimed are recorded with their wait so far, a
   * lower bound, so a system that never claims cannot look fast. Returns how many there were.
   */
  public long censorPending(long nowMicros) {
    long censored = 0;
    for (Long token : sentAtMicros.keySet()) {
      Long sent = sentAtMicros.remove(token);
      if (sent != null) {
        censored++;
        synchronized (latencyMicros) {
          latencyMicros.recordValue(Math.min(Math.max(0, nowMicros - sent), MAX_LATENCY_MICROS));
        }
      }
    }
    return censored;
  }

  @Override
  public void onClaim(ClaimedActivation claim) {
    claims.increment();
    firstClaimMicros.compareAndSet(0, claim.claimedAtMicros());
    for (long token : claim.tokens()) {
      Long sent;
      if (lateSends) {
        synchronized (claimedBeforeSent) {
          sent = sentAtMicros.remove(token);
          if (sent == null) {
            claimedBeforeSent.put(token, claim.claimedAtMicros());
            continue;
          }
        }
      } else {
        sent = sentAtMicros.remove(token);
      }
      if (sent == null) {
        // claimed twice, or from an earlier phase: not a latency sample
        unknownTokens.increment();
        continue;
      }
      tokensClaimed.increment();
      long latency = Math.max(0, claim.claimedAtMicros() - sent);
      synchronized (latencyMicros) {
        latencyMicros.recordValue(Math.min(latency, MAX_LATENCY_MICROS));
      }
    }
  }

  @Override
  public void onComplete(Completion completion) {
    activations.increment();
    (completion.kind() == ActivationKind.EXPLORATION ? explorationActivations : inboxActivations)
        .increment();
    notifications.add(completion.notifications());
    lastCompletionMicros.accumulateAndGet(completion.completedAtMicros(), Math::max);
    if (fairness != null) {
      fairness.completed(AgentIds.index(completion.agentId()), completion.completedAtMicros());
    }
  }

  public long claims() {
    return claims.sum();
  }

  public long activations() {
    return activations.sum();
  }

  public long inboxActivations() {
    return inboxActivations.sum();
  }

  public long explorationActivations() {
    return explorationActivations.sum();
  }

  /** Notifications marked read by completed activations. */
  public long notifications() {
    return notifications.sum();
  }

  public long tokensClaimed() {
    return tokensClaimed.sum();
  }

  /** Published tokens no claim has carried yet. */
  public long tokensPending() {
    return sentAtMicros.size();
  }

  public long unknownTokens() {
    return unknownTokens.sum() + claimedBeforeSent.size();
  }

  /** When the first claim was reported, 0 before: the start of a throughput window. */
  public long firstClaimMicros() {
    return firstClaimMicros.get();
  }

  public long lastCompletionMicros() {
    return lastCompletionMicros.get();
  }

  /** Latency percentile in milliseconds; NaN without samples. */
  public double latencyMillis(double percentile) {
    synchronized (latencyMicros) {
      if (latencyMicros.getTotalCount() == 0) {
        return Double.NaN;
      }
      long micros =
          percentile >= 100
              ? latencyMicros.getMaxValue()
              : latencyMicros.getValueAtPercentile(percentile);
      return micros / 1000.0;
    }
  }

  public long latencySamples() {
    synchronized (latencyMicros) {
      return latencyMicros.getTotalCount();
    }
  }
}
