package dev.rota.cluster.rescue;

import com.typesafe.config.Config;
import java.time.Duration;

/** The {@code rota.rescue.*} settings of the {@link LeaseRescuer}. */
public record RescueSettings(
    Duration interval, Duration grace, int batchSize, Duration askTimeout) {

  public static RescueSettings from(Config config) {
    Config c = config.getConfig("rota.rescue");
    return new RescueSettings(
        c.getDuration("interval"),
        c.getDuration("grace"),
        c.getInt("batch-size"),
        c.getDuration("ask-timeout"));
  }
}
