package dev.rota.cluster.assign;

import com.typesafe.config.Config;
import java.time.Duration;

/** The {@code rota.scheduling} and {@code rota.coordinator} settings. */
public record CoordinatorSettings(
    int partitions,
    Duration inboxMaxWait,
    Duration reconcileInterval,
    Duration claimTimeout,
    int claimTries,
    int heads,
    Duration settle) {

  public static CoordinatorSettings from(Config config) {
    Config rota = config.getConfig("rota");
    return new CoordinatorSettings(
        rota.getInt("partitions"),
        rota.getDuration("scheduling.inbox-max-wait"),
        rota.getDuration("coordinator.reconcile-interval"),
        rota.getDuration("coordinator.claim-timeout"),
        rota.getInt("coordinator.claim-tries"),
        rota.getInt("coordinator.heads"),
        rota.getDuration("coordinator.settle"));
  }
}
