package dev.rota.cluster.tenant;

import dev.rota.cluster.CborSerializable;
import dev.rota.core.tenant.TenantSpec;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * A capped tenant's permits, as its {@link TenantGate} holds them: one per lease its agents may
 * hold (by lease id, which names the agent and the lease's fencing token), and the grants of the
 * last minute. Pure and immutable: every rule of the cap is here, tested without actors.
 *
 * <p>A permit is given up only when its lease's agent released it, or said, when asked after the
 * permit's {@code checkAt}, that it no longer holds that lease. So the permits held are never fewer
 * than the leases held, and a grant that would take them past the cap is refused.
 *
 * @param permits the permits held, by lease id
 * @param grants when each grant of the last {@link #WINDOW} was permitted, oldest first
 * @param generation the generation of the newest permit: a permit taken again gets a new one, so
 *     that an answer about an older taking cannot drop it
 */
public record Permits(Map<String, Permit> permits, List<Instant> grants, long generation)
    implements CborSerializable {
  /** The rate cap's sliding window. */
  public static final Duration WINDOW = Duration.ofMinutes(1);

  public static final String TENANT_CAP = "tenant_cap";
  public static final String TENANT_RATE = "tenant_rate";

  public static final Permits EMPTY = new Permits(Map.of(), List.of(), 0);

  public Permits {
    permits = Map.copyOf(permits);
    grants = List.copyOf(grants);
  }

  /**
   * One permit: agent {@code agentKey} may hold lease {@code leaseId}; its gate asks the agent
   * about it once {@code checkAt} has passed.
   */
  public record Permit(
      String agentKey, String leaseId, Instant grantedAt, Instant checkAt, long generation)
      implements CborSerializable {}

  /** What the gate answers an agent that asks for a permit. */
  public sealed interface Decision {}

  /** The permit may be taken. */
  public record Allow() implements Decision {}

  /**
   * No permit: {@code reason} is {@link #TENANT_CAP} or {@link #TENANT_RATE}; {@code until} when
   * the refusal ends by time alone, null when that is not known (a lease may end at any moment).
   */
  public record Refuse(String reason, Instant until) implements Decision {}

  /**
   * Whether lease {@code leaseId} may be granted now under {@code spec}. A lease that already holds
   * a permit (an agent asking again after its first answer was lost) may.
   */
  public Decision decide(TenantSpec spec, String leaseId, Instant now) {
    if (permits.containsKey(leaseId)) {
      return new Allow();
    }
    if (spec.maxConcurrent() != null && permits.size() >= spec.maxConcurrent()) {
      return new Refuse(TENANT_CAP, null);
    }
    if (spec.maxActivationsPerMinute() != null) {
      Instant until = rateUntil(spec.maxActivationsPerMinute(), now);
      if (until != null) {
        return new Refuse(TENANT_RATE, until);
      }
    }
    return new Allow();
  }

  /** The grants inside the window that ends at {@code now}. */
  public int inWindow(Instant now) {
    Instant from = now.minus(WINDOW);
    int count = 0;
    for (Instant at : grants) {
      if (at.isAfter(from)) {
        count++;
      }
    }
    return count;
  }

  /**
   * When a grant fits under {@code maxPerMinute} again: the moment the grant that keeps the window
   * full leaves it; null when one fits now.
   */
  public Instant rateUntil(int maxPerMinute, Instant now) {
    Instant from = now.minus(WINDOW);
    List<Instant> in = grants.stream().filter(at -> at.isAfter(from)).toList();
    if (in.size() < maxPerMinute) {
      return null;
    }
    return in.get(in.size() - maxPerMinute).plus(WINDOW);
  }

  /** A permit taken for {@code leaseId}; grants older than the window are forgotten. */
  public Permits granted(String agentKey, String leaseId, Instant at, Instant checkAt) {
    Map<String, Permit> next = new LinkedHashMap<>(permits);
    boolean again = next.containsKey(leaseId);
    next.put(leaseId, new Permit(agentKey, leaseId, at, checkAt, generation + 1));
    List<Instant> kept = new ArrayList<>();
    Instant from = at.minus(WINDOW);
    for (Instant g : grants) {
      if (g.isAfter(from)) {
        kept.add(g);
      }
    }
    if (!again) {
      kept.add(at);
    }
    return new Permits(next, kept, generation + 1);
  }

  /** The permit of {@code leaseId} given up. */
  public Permits released(String leaseId) {
    if (!permits.containsKey(leaseId)) {
      return this;
    }
    Map<String, Permit> next = new LinkedHashMap<>(permits);
    next.remove(leaseId);
    return new Permits(next, grants, generation);
  }

  /** The permit of {@code leaseId} is still needed: ask again at {@code checkAt}. */
  public Permits checked(String leaseId, Instant checkAt) {
    Permit p = permits.get(leaseId);
    if (p == null) {
      return this;
    }
    Map<String, Permit> next = new LinkedHashMap<>(permits);
    next.put(leaseId, new Permit(p.agentKey(), leaseId, p.grantedAt(), checkAt, p.generation()));
    return new Permits(next, grants, generation);
  }

  /** Whether {@code leaseId} holds a permit of {@code generation}: the one a check was sent for. */
  public boolean holds(String leaseId, long generation) {
    Permit p = permits.get(leaseId);
    return p != null && p.generation() == generation;
  }

  /** The permits whose lease is to be asked about at {@code now}, the oldest check first. */
  public List<Permit> due(Instant now) {
    return permits.values().stream()
        .filter(p -> !p.checkAt().isAfter(now))
        .sorted(Comparator.comparing(Permit::checkAt))
        .toList();
  }
}
