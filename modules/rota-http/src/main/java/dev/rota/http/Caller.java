package dev.rota.http;

import dev.rota.core.tenant.Tenants;
import java.util.EnumSet;
import java.util.List;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * Who is asking, as their token says: its roles, the tenants it may work in, and (for runners) the
 * runner ids it may act as. A token without {@code tenants} works in every tenant; one without
 * {@code runnerIds} may act as any runner except the nodes' own if it works in every tenant, and as
 * none if it is scoped to tenants (see {@link #mayActAs}). With no tokens configured every request
 * is {@link #ANYONE}.
 *
 * @param id which configured token this is, by where it was written (e.g. {@code
 *     rota.http.tokens[2]}): never the token itself; empty for {@link #ANYONE}
 * @param roles what the token may do; {@link Role#ADMIN} implies every role
 * @param tenants the tenants it may work in; empty: every tenant
 * @param runnerIds exact runner ids, or prefixes ending in {@code *}; empty: any runner id for a
 *     token of every tenant, none for a token scoped to tenants
 */
public record Caller(String id, Set<Role> roles, Set<String> tenants, List<String> runnerIds) {
  /** The caller of a node without tokens: every role, every tenant, any runner. */
  public static final Caller ANYONE =
      new Caller("", EnumSet.allOf(Role.class), Set.of(), List.of());

  /**
   * The ids of the nodes' own runners ({@code <host>:<port>/<pool>-<n>}): no external runner may
   * take them, whatever its token's {@code runnerIds}.
   */
  private static final Pattern IN_CLUSTER_RUNNER = Pattern.compile(".*:\\d+/.+-\\d+");

  public Caller {
    id = java.util.Objects.requireNonNull(id, "id");
    roles = roles.isEmpty() ? Set.of() : Set.copyOf(EnumSet.copyOf(roles));
    tenants = Set.copyOf(tenants);
    runnerIds = List.copyOf(runnerIds);
    for (String tenant : tenants) {
      if (!Tenants.isValidName(tenant)) {
        throw new IllegalArgumentException(
            "'" + tenant + "' is not a tenant name (1-64 of a-z, 0-9 and -)");
      }
    }
    for (String pattern : runnerIds) {
      if (pattern.isEmpty()
          || pattern.equals("*")
          || pattern.indexOf('*') != pattern.length() - 1 && pattern.contains("*")) {
        throw new IllegalArgumentException(
            "'" + pattern + "' is not a runner id pattern: an exact id, or a prefix ending in *");
      }
    }
  }

  /** Whether this is the caller of a node without tokens. */
  public boolean anonymous() {
    return id.isEmpty();
  }

  public boolean has(Role role) {
    return roles.contains(role) || roles.contains(Role.ADMIN);
  }

  /**
   * The tenants a scoped token works in as one name ({@code acme}, or {@code acme,beta} sorted);
   * null for a token of every tenant. Runner health counts the blocks a token reports under it.
   */
  public String scope() {
    return tenants.isEmpty() ? null : String.join(",", new java.util.TreeSet<>(tenants));
  }

  /** Whether the token works in every tenant. */
  public boolean everyTenant() {
    return tenants.isEmpty();
  }

  /** Whether the token may work in {@code tenant}. */
  public boolean mayUse(String tenant) {
    return tenants.isEmpty() || tenants.contains(tenant);
  }

  /**
   * Whether a runner with this token may claim, report and send health as {@code runnerId}. A token
   * scoped to tenants acts only under its {@code runnerIds}: without them (an admin of a tenant; a
   * runner token so written does not start) it acts as no runner, since runner ids are one
   * namespace across tenants.
   */
  public boolean mayActAs(String runnerId) {
    if (IN_CLUSTER_RUNNER.matcher(runnerId).matches()) {
      return false;
    }
    if (runnerIds.isEmpty()) {
      return tenants.isEmpty();
    }
    for (String pattern : runnerIds) {
      boolean prefix = pattern.endsWith("*");
      if (prefix
          ? runnerId.startsWith(pattern.substring(0, pattern.length() - 1))
          : runnerId.equals(pattern)) {
        return true;
      }
    }
    return false;
  }

  /** Refuses, with 403, a runner id this caller may not act as. */
  public String requireRunner(String runnerId) {
    if (!mayActAs(runnerId)) {
      throw new ApiException(
          ApiError.FORBIDDEN,
          IN_CLUSTER_RUNNER.matcher(runnerId).matches()
              ? "runner id '" + runnerId + "' names a node's own runner"
              : runnerIds.isEmpty()
                  ? "this token is scoped to tenants and has no runnerIds: it acts as no runner"
                  : "this token may not act as runner '" + runnerId + "' (its runnerIds)");
    }
    return runnerId;
  }
}
