package dev.rota.core.model;

import java.time.Instant;
import java.util.List;

/**
 * The exclusive right of one runner to run one agent until {@code expiresAt}. The lease id embeds
 * the agent id and a fresh fencing token, so any older lease id is refused.
 *
 * @param notificationIds the unread notifications the activation carries (coalesced at claim)
 * @param leaseSeconds how far a heartbeat extends the lease from now
 * @param schedule the fire a {@link ActivationKind#SCHEDULED} turn serves; null for other kinds
 */
public record Lease(
    String leaseId,
    String runnerId,
    ActivationKind kind,
    long fencingToken,
    int attempt,
    Instant grantedAt,
    Instant expiresAt,
    long leaseSeconds,
    List<String> notificationIds,
    ScheduleFire schedule) {

  public Lease {
    notificationIds = List.copyOf(notificationIds);
  }

  /** A lease that serves no schedule (inbox and exploration turns). */
  public Lease(
      String leaseId,
      String runnerId,
      ActivationKind kind,
      long fencingToken,
      int attempt,
      Instant grantedAt,
      Instant expiresAt,
      long leaseSeconds,
      List<String> notificationIds) {
    this(
        leaseId,
        runnerId,
        kind,
        fencingToken,
        attempt,
        grantedAt,
        expiresAt,
        leaseSeconds,
        notificationIds,
        null);
  }

  public Lease extendedTo(Instant newExpiry) {
    return new Lease(
        leaseId,
        runnerId,
        kind,
        fencingToken,
        attempt,
        grantedAt,
        newExpiry,
        leaseSeconds,
        notificationIds,
        schedule);
  }
}
