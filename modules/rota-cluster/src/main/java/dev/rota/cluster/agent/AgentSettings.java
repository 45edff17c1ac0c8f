package dev.rota.cluster.agent;

import com.typesafe.config.Config;
import dev.rota.core.model.DedupeKeys;
import java.time.Duration;

/**
 * The {@code rota.*} settings an agent entity needs, read once per node.
 *
 * @param maxInboxBytes the most an agent's unread notifications may hold ({@link
 *     dev.rota.core.model.Notification#estimatedBytes()}); past it a notification is refused 429
 * @param maxDeadLetters the most dead letters an agent keeps; past it the oldest are dropped
 * @param maxDedupeKeys the most dedupe keys an agent remembers; past it the oldest are forgotten
 * @param maxNotificationsPerActivation the most notifications one activation carries
 * @param maxActivationBytes the most bytes of notifications one activation carries (at least one
 *     notification, whatever its size)
 */
public record AgentSettings(
    int partitions,
    long defaultLeaseSeconds,
    Duration dedupeWindow,
    int snapshotEvery,
    Duration expiryGrace,
    long maxInboxBytes,
    int maxDeadLetters,
    int maxNotificationsPerActivation,
    long maxActivationBytes,
    int maxDedupeKeys) {

  public static final long DEFAULT_MAX_INBOX_BYTES = 4L * 1024 * 1024;
  public static final int DEFAULT_MAX_DEAD_LETTERS = 1000;
  public static final int DEFAULT_MAX_NOTIFICATIONS_PER_ACTIVATION = 100;
  public static final long DEFAULT_MAX_ACTIVATION_BYTES = 128L * 1024;

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
        DEFAULT_MAX_INBOX_BYTES,
        DEFAULT_MAX_DEAD_LETTERS,
        DEFAULT_MAX_NOTIFICATIONS_PER_ACTIVATION,
        DEFAULT_MAX_ACTIVATION_BYTES,
        DedupeKeys.DEFAULT_MAX_KEYS);
  }

  /** Default inbox and dead-letter caps, the given per-activation limits (tests). */
  public AgentSettings(
      int partitions,
      long defaultLeaseSeconds,
      Duration dedupeWindow,
      int snapshotEvery,
      Duration expiryGrace,
      int maxNotificationsPerActivation,
      long maxActivationBytes) {
    this(
        partitions,
        defaultLeaseSeconds,
        dedupeWindow,
        snapshotEvery,
        expiryGrace,
        DEFAULT_MAX_INBOX_BYTES,
        DEFAULT_MAX_DEAD_LETTERS,
        maxNotificationsPerActivation,
        maxActivationBytes,
        DedupeKeys.DEFAULT_MAX_KEYS);
  }

  public static AgentSettings from(Config config) {
    Config rota = config.getConfig("rota");
    return new AgentSettings(
        rota.getInt("partitions"),
        rota.getLong("agent.default-lease-seconds"),
        rota.getDuration("agent.dedupe-window"),
        rota.getInt("agent.snapshot-every"),
        rota.getDuration("agent.expiry-grace"),
        rota.getBytes("agent.max-inbox-bytes"),
        rota.getInt("agent.max-dead-letters"),
        rota.getInt("agent.max-notifications-per-activation"),
        rota.getBytes("agent.max-activation-bytes"),
        rota.getInt("agent.max-dedupe-keys"));
  }

  public int partitionOf(String agentId) {
    return dev.rota.core.model.Partitions.of(agentId, partitions);
  }
}
