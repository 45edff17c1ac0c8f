package dev.rota.cluster.agent;

import com.typesafe.config.Config;
import java.time.Duration;

/** The {@code rota.*} settings an agent entity needs, read once per node. */
public record AgentSettings(
    int partitions,
    long defaultLeaseSeconds,
    Duration dedupeWindow,
    int snapshotEvery,
    Duration expiryGrace) {

  public static AgentSettings from(Config config) {
    Config rota = config.getConfig("rota");
    return new AgentSettings(
        rota.getInt("partitions"),
        rota.getLong("agent.default-lease-seconds"),
        rota.getDuration("agent.dedupe-window"),
        rota.getInt("agent.snapshot-every"),
        rota.getDuration("agent.expiry-grace"));
  }

  public int partitionOf(String agentId) {
    return dev.rota.core.model.Partitions.of(agentId, partitions);
  }
}
