package dev.rota.http;

import dev.rota.core.tenant.AgentKeys;
import dev.rota.core.tenant.TenantTable;
import dev.rota.core.tenant.Tenants;
import java.util.Optional;
import java.util.function.Supplier;

/**
 * The tenant a request works in, and the keys of its agents. A token scoped to exactly one tenant
 * works in it; any other names one with {@code ?tenant=} (absent: {@code default}). A tenant the
 * token may not use is answered exactly like one that does not exist — 404 — so a scoped token
 * cannot learn which other tenants there are.
 */
public final class TenantResolver {
  private final Supplier<TenantTable> tenants;

  public TenantResolver(Supplier<TenantTable> tenants) {
    this.tenants = tenants;
  }

  /** A node with the default tenant only (tests of routes without a cluster). */
  public static TenantResolver defaultOnly() {
    return new TenantResolver(() -> TenantTable.DEFAULT_ONLY);
  }

  /** The tenant of a request: the {@code tenant} query parameter, or the token's only tenant. */
  public String tenantOf(Caller caller, Optional<String> param) {
    String tenant;
    if (param.isPresent() && !param.get().isEmpty()) {
      tenant = param.get();
      if (!Tenants.isValidName(tenant)) {
        throw ApiException.invalid("tenant must be 1 to 64 characters of a-z, 0-9 and -");
      }
    } else if (caller.tenants().size() == 1) {
      tenant = caller.tenants().iterator().next();
    } else {
      tenant = Tenants.DEFAULT;
    }
    if (!caller.mayUse(tenant) || !tenants.get().exists(tenant)) {
      throw ApiException.notFound("no tenant " + tenant);
    }
    return tenant;
  }

  /**
   * The key of a routed id's agent (a lease or dead-letter id), if its tenant is one the caller may
   * use; empty otherwise, which the routes answer as if the id did not exist.
   */
  public static Optional<String> visibleKey(Caller caller, Optional<String> key) {
    return key.filter(k -> caller.mayUse(AgentKeys.tenantOf(k)));
  }

  public TenantTable table() {
    return tenants.get();
  }
}
