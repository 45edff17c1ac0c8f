package dev.rota.cluster.agent;

import com.typesafe.config.Config;
import java.time.Duration;

/** The {@code rota.calls.*} settings (reference.conf documents them), read once per agent. */
public record CallSettings(
    int maxSendsPerTurn,
    int maxDepth,
    Duration deliveryTimeout,
    Duration retryMin,
    Duration retryMax,
    Duration askTimeout,
    Duration retention) {

  public static CallSettings from(Config config) {
    Config calls = config.getConfig("rota.calls");
    return new CallSettings(
        calls.getInt("max-sends-per-turn"),
        calls.getInt("max-depth"),
        calls.getDuration("delivery-timeout"),
        calls.getDuration("delivery-retry-min"),
        calls.getDuration("delivery-retry-max"),
        calls.getDuration("delivery-ask-timeout"),
        calls.getDuration("retention"));
  }

  /** The wait before try {@code tries + 1} of a delivery: doubling from the minimum, capped. */
  public Duration backoff(int tries) {
    long millis = retryMin.toMillis() << Math.min(tries, 20);
    return Duration.ofMillis(Math.min(millis, retryMax.toMillis()));
  }
}
