package dev.rota.core.tenant;

import dev.rota.core.model.Ids;

/**
 * An agent's key: the one string the cluster knows an agent by (its entity id, its persistence id,
 * its {@code agent_schedule} row). An agent of the {@code default} tenant is keyed by its id alone,
 * so a node without tenants stores exactly what it stored before tenants existed; an agent of
 * another tenant by {@code <tenant>/<agentId>}. Agent ids may not contain {@code /}, so the key
 * tells its tenant and id apart without a lookup, and every part of the cluster can name an agent's
 * tenant from its key.
 */
public final class AgentKeys {
  private static final char SEPARATOR = '/';

  private AgentKeys() {}

  /** The key of agent {@code agentId} in {@code tenant}. */
  public static String key(String tenant, String agentId) {
    return Tenants.DEFAULT.equals(tenant) ? agentId : tenant + SEPARATOR + agentId;
  }

  /** The tenant of a key. */
  public static String tenantOf(String key) {
    int slash = key.indexOf(SEPARATOR);
    return slash < 0 ? Tenants.DEFAULT : key.substring(0, slash);
  }

  /** The agent id (as its tenant knows it) of a key. */
  public static String agentIdOf(String key) {
    int slash = key.indexOf(SEPARATOR);
    return slash < 0 ? key : key.substring(slash + 1);
  }

  /** Whether {@code key} is a well-formed key: an agent id, or a tenant name, a slash and an id. */
  public static boolean isValidKey(String key) {
    return Ids.isValidAgentKey(key);
  }

  /** The SQL {@code LIKE} pattern that matches the keys of one tenant other than default. */
  public static String likePattern(String tenant) {
    return tenant + SEPARATOR + "%";
  }
}
