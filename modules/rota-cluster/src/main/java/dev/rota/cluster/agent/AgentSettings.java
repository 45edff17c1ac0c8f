package dev.rota.cluster.agent;

import com.typesafe.config.Config;
import java.time.Duration;

/** The {@code rota.*} settings an agent entity needs, read once per node. */
public record AgentSettings(
    int partitions,
    long defaultLeaseSeconds,
    Duration dedupeWindow,
    int snapshotEvery,
    Duration expiryGrace,
    int maxNotificationsPerActivation,
    long maxActivationBytes) {

  /** Without per-activation limits beyond the defaults (tests). */
  public AgentSettings(
      int partitions,
      long defaultLeaseSeconds,
      Duration dedupeWindow,
      int snapshotEvery,
      Duration expiryGrace) {
    this(
        partitions,
        defaultLeaseSeconds,
        dedupeWindow,
        snapshotEvery,
        expiryGrace,
        DEFAULT_MAX_NOTIFICATIONS,
        DEFAULT_MAX_BYTES);
  }

  static final int DEFAULT_MAX_NOTIFICATIONS = 100;
  static final long DEFAULT_MAX_BYTES = 128 * 1024;

  public static AgentSettings from(Config config) {
    Config rota = config.getConfig("rota");
    return new AgentSettings(
        rota.getInt("partitions"),
        rota.getLong("agent.default-lease-seconds"),
        rota.getDuration("agent.dedupe-window"),
        rota.getInt("agent.snapshot-every"),
        rota.getDuration("agent.expiry-grace"),
        rota.getInt("agent.max-notifications-per-activation"),
        rota.getBytes("agent.max-activation-bytes"));
  }

  public int partitionOf(String agentId) {
    return dev.rota.core.model.Partitions.of(agentId, partitions);
  }
}
