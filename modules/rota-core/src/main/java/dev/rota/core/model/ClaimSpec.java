package dev.rota.core.model;

import java.time.Duration;
import java.util.Set;

/**
 * What a runner claims: who it is, the work it takes, how long it waits for some, the lease it asks
 * for and the tenants it serves. Made once where the claim comes in (the HTTP claim route, an
 * in-cluster runner) and carried unchanged by the dispatcher's request and the agent's claim
 * command. Both cross nodes with these fields flat beside their own, so the names here are wire
 * names: they are never renamed, and a field added here is absent from older nodes' messages.
 *
 * @param maxWait how long to wait for work when none fits now (a long poll), zero to answer at once
 * @param leaseSeconds the lease length asked for, 0 for the configured default
 * @param tenants the tenants whose agents the runner may serve; empty: every tenant
 */
public record ClaimSpec(
    String runnerId,
    RunnerMode mode,
    Set<String> capabilities,
    Duration maxWait,
    long leaseSeconds,
    Set<String> tenants) {
  /** A null {@code maxWait} waits not at all; null {@code tenants} (older messages): every one. */
  public ClaimSpec {
    capabilities = Set.copyOf(capabilities);
    maxWait = maxWait == null ? Duration.ZERO : maxWait;
    tenants = tenants == null ? Set.of() : Set.copyOf(tenants);
  }

  /** A claim that may serve every tenant. */
  public ClaimSpec(
      String runnerId,
      RunnerMode mode,
      Set<String> capabilities,
      Duration maxWait,
      long leaseSeconds) {
    this(runnerId, mode, capabilities, maxWait, leaseSeconds, Set.of());
  }

  /** Whether the claim waits for work when none fits now. */
  public boolean longPoll() {
    return maxWait.compareTo(Duration.ZERO) > 0;
  }

  /** Whether the claim may serve an agent of {@code tenant}. */
  public boolean serves(String tenant) {
    return tenants.isEmpty() || tenants.contains(tenant);
  }

  /** The same claim serving {@code served}. */
  public ClaimSpec withTenants(Set<String> served) {
    return new ClaimSpec(runnerId, mode, capabilities, maxWait, leaseSeconds, served);
  }
}
