package dev.rota.cluster.assign;

import com.typesafe.config.Config;
import java.time.Duration;

/**
 * The {@code rota.scheduling} and {@code rota.coordinator} settings of a partition's coordinator; a
 * claim's own time-outs are {@link ClaimSettings}.
 */
public record CoordinatorSettings(
    int partitions, Duration inboxMaxWait, Duration reconcileInterval, int heads) {

  public static CoordinatorSettings from(Config config) {
    Config rota = config.getConfig("rota");
    return new CoordinatorSettings(
        rota.getInt("partitions"),
        rota.getDuration("scheduling.inbox-max-wait"),
        rota.getDuration("coordinator.reconcile-interval"),
        rota.getInt("coordinator.heads"));
  }
}
