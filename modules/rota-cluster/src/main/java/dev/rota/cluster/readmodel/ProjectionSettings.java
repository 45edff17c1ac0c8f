package dev.rota.cluster.readmodel;

import com.typesafe.config.Config;
import java.time.Duration;

/**
 * The {@code rota.projection.*} settings of the read model's alternative writer, the projection.
 */
public record ProjectionSettings(
    int groupAfterEnvelopes,
    Duration groupAfterDuration,
    Duration restartMinBackoff,
    Duration restartMaxBackoff,
    double restartRandomFactor) {

  public static ProjectionSettings from(Config config) {
    Config c = config.getConfig("rota.projection");
    return new ProjectionSettings(
        c.getInt("group-after-envelopes"),
        c.getDuration("group-after-duration"),
        c.getDuration("restart-backoff.min"),
        c.getDuration("restart-backoff.max"),
        c.getDouble("restart-backoff.random-factor"));
  }
}
