package dev.rota.core.tenant;

import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;

/**
 * Every tenant a node knows, by name. {@code default} is always in it (weight 1, no caps, unless
 * configured otherwise).
 */
public record TenantTable(Map<String, TenantSpec> tenants) {
  public static final TenantTable DEFAULT_ONLY = of(Map.of());

  public TenantTable {
    Map<String, TenantSpec> sorted = new TreeMap<>(tenants);
    sorted.putIfAbsent(Tenants.DEFAULT, TenantSpec.plain(Tenants.DEFAULT));
    tenants = java.util.Collections.unmodifiableMap(new LinkedHashMap<>(sorted));
  }

  public static TenantTable of(Map<String, TenantSpec> tenants) {
    return new TenantTable(tenants);
  }

  public Optional<TenantSpec> find(String name) {
    return Optional.ofNullable(tenants.get(name));
  }

  public boolean exists(String name) {
    return tenants.containsKey(name);
  }

  /** The spec of {@code name}, or weight 1 without caps for a tenant this table does not know. */
  public TenantSpec specOf(String name) {
    TenantSpec spec = tenants.get(name);
    return spec != null ? spec : TenantSpec.plain(name);
  }

  public Collection<TenantSpec> all() {
    return tenants.values();
  }

  public TenantTable with(TenantSpec spec) {
    Map<String, TenantSpec> next = new LinkedHashMap<>(tenants);
    next.put(spec.name(), spec);
    return of(next);
  }

  public TenantTable without(String name) {
    Map<String, TenantSpec> next = new LinkedHashMap<>(tenants);
    next.remove(name);
    return of(next);
  }
}
