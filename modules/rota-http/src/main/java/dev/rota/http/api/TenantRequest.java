package dev.rota.http.api;

import dev.rota.core.tenant.TenantSpec;
import dev.rota.core.tenant.Tenants;
import dev.rota.http.ApiException;

/**
 * The body of {@code PUT /admin/tenants/{tenant}}: {@code {"weight": 1, "maxConcurrent": null,
 * "maxActivationsPerMinute": null}}. {@code weight} 1–1000 (default 1); each cap, when given, at
 * least 1 (null or absent: no cap).
 */
public record TenantRequest(
    Integer weight, Integer maxConcurrent, Integer maxActivationsPerMinute) {
  public static final int MAX_CAP = 1_000_000_000;

  /** The tenant name of the path, checked; a 400 otherwise. */
  public static String checkedName(String tenant) {
    if (!Tenants.isValidName(tenant)) {
      throw ApiException.invalid(
          "the tenant name must be 1-64 characters of a-z, 0-9 and '-', not '"
              + (tenant.length() > 80 ? tenant.substring(0, 80) + "…" : tenant)
              + "'");
    }
    return tenant;
  }

  /** The tenant's spec; a 400 naming the field when a value is out of range. */
  public TenantSpec spec(String tenant) {
    Fields.checkRange("weight", weight, 1, TenantSpec.MAX_WEIGHT);
    Fields.checkRange("maxConcurrent", maxConcurrent, 1, MAX_CAP);
    Fields.checkRange("maxActivationsPerMinute", maxActivationsPerMinute, 1, MAX_CAP);
    return new TenantSpec(
        checkedName(tenant), weight == null ? 1 : weight, maxConcurrent, maxActivationsPerMinute);
  }
}
