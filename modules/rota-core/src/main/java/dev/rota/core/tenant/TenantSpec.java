package dev.rota.core.tenant;

import java.util.Objects;

/**
 * What an admin set for a tenant: its weight in the share of runner time, and its caps.
 *
 * @param name the tenant's name ({@link Tenants#isValidName})
 * @param weight its weight, 1–1000: a tenant of weight 3 gets three times the runner time of one of
 *     weight 1 while both have work
 * @param maxConcurrent leases its agents may hold at once across the cluster; null: no cap
 * @param maxActivationsPerMinute grants per minute across the cluster; null: no cap
 */
public record TenantSpec(
    String name, int weight, Integer maxConcurrent, Integer maxActivationsPerMinute) {
  public static final int MAX_WEIGHT = 1000;

  public TenantSpec {
    Objects.requireNonNull(name, "name");
    if (!Tenants.isValidName(name)) {
      throw new IllegalArgumentException("a tenant name is 1-64 of [a-z0-9-]: '" + name + "'");
    }
    if (weight < 1 || weight > MAX_WEIGHT) {
      throw new IllegalArgumentException("weight must be 1-" + MAX_WEIGHT + ", was " + weight);
    }
    if (maxConcurrent != null && maxConcurrent < 1) {
      throw new IllegalArgumentException("maxConcurrent must be at least 1, was " + maxConcurrent);
    }
    if (maxActivationsPerMinute != null && maxActivationsPerMinute < 1) {
      throw new IllegalArgumentException(
          "maxActivationsPerMinute must be at least 1, was " + maxActivationsPerMinute);
    }
  }

  /** A tenant with weight 1 and no caps: {@code default} until an admin changes it. */
  public static TenantSpec plain(String name) {
    return new TenantSpec(name, 1, null, null);
  }

  public boolean capped() {
    return maxConcurrent != null || maxActivationsPerMinute != null;
  }
}
