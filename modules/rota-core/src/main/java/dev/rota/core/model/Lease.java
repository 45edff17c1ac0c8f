package dev.rota.core.model;

import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * The exclusive right of one runner to run one agent until {@code expiresAt}. The lease id embeds
 * the agent id and a fresh fencing token, so any older lease id is refused.
 *
 * @param notificationIds the unread notifications the activation carries (coalesced at claim)
 * @param leaseSeconds how far a heartbeat extends the lease from now
 * @param schedule the fire a {@link ActivationKind#SCHEDULED} turn serves; null for other kinds
 * @param steeredIds the notifications that joined the running turn ({@link NewInput#STEER}), in
 *     order; they are in {@code notificationIds} too, so the lease's end ends them alike
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
    ScheduleFire schedule,
    List<String> steeredIds) {

  public Lease {
    notificationIds = List.copyOf(notificationIds);
    // Leases written before steering existed have none.
    steeredIds = steeredIds == null ? List.of() : List.copyOf(steeredIds);
  }

  /** A lease no notification has joined yet. */
  public Lease(
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
        schedule,
        List.of());
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
        schedule,
        steeredIds);
  }

  /**
   * This lease without the steered notifications {@code unseen} (its runner was not given them):
   * they leave the lease, so its end leaves them unread in the inbox.
   */
  public Lease withoutSteered(Collection<String> unseen) {
    if (unseen.isEmpty()) {
      return this;
    }
    Set<String> drop = new HashSet<>(unseen);
    return withIds(
        notificationIds.stream().filter(id -> !drop.contains(id)).toList(),
        steeredIds.stream().filter(id -> !drop.contains(id)).toList());
  }

  /** The steered notifications not in {@code seen}, in order; none when {@code seen} is null. */
  public List<String> unseenSteered(Collection<String> seen) {
    if (seen == null || steeredIds.isEmpty()) {
      return List.of();
    }
    Set<String> given = new HashSet<>(seen);
    return steeredIds.stream().filter(id -> !given.contains(id)).toList();
  }

  /** This lease with notification {@code notificationId} joined to the running turn. */
  public Lease steered(String notificationId) {
    List<String> ids = new ArrayList<>(notificationIds);
    ids.add(notificationId);
    List<String> steered = new ArrayList<>(steeredIds);
    steered.add(notificationId);
    return withIds(ids, steered);
  }

  /** This lease carrying {@code ids}, of which {@code steered} joined the running turn. */
  private Lease withIds(List<String> ids, List<String> steered) {
    return new Lease(
        leaseId,
        runnerId,
        kind,
        fencingToken,
        attempt,
        grantedAt,
        expiresAt,
        leaseSeconds,
        ids,
        schedule,
        steered);
  }
}
