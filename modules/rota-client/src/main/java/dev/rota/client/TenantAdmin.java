package dev.rota.client;

import static dev.rota.client.Calls.body;
import static dev.rota.client.Calls.encode;
import static dev.rota.client.Calls.read;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.rota.client.Calls.Retry;

/**
 * The tenant admin calls of a {@link RotaClient} (role admin), {@code /admin/tenants}: every tenant
 * with its figures, one tenant, create or change one, delete one. Views are the server's JSON
 * ({@code tenant}, {@code weight}, {@code maxConcurrent}, {@code maxActivationsPerMinute}, {@code
 * agents}, {@code unread}, {@code leased}, {@code activationsPerMinute}, {@code share}, {@code
 * oldestUnreadAgeSeconds}).
 *
 * <pre>{@code
 * rota.tenants().set("acme", 3, 10, null);
 * rota.tenants().list().get("tenants").forEach(t -> System.out.println(t));
 * }</pre>
 */
public final class TenantAdmin {
  private final Calls calls;

  TenantAdmin(Calls calls) {
    this.calls = calls;
  }

  /** The client's tenant for agent calls ({@link RotaClient.Builder#tenant}); null: none. */
  public String clientTenant() {
    return calls.tenant();
  }

  /** {@code GET /admin/tenants}: {@code {"tenants": [...]}}, by name. */
  public JsonNode list() {
    return read(calls.call("GET", "admin/tenants", null, Retry.ANY), JsonNode.class);
  }

  /**
   * One tenant's view.
   *
   * @throws RotaException.NotFound for an unknown tenant
   */
  public JsonNode get(String name) {
    return read(calls.call("GET", path(name), null, Retry.ANY), JsonNode.class);
  }

  /**
   * Creates a tenant or changes it; returns its view. Setting it twice sets it once.
   *
   * @param weight its weight in the share of runner time, 1–1000
   * @param maxConcurrent leases its agents may hold at once; null for no cap
   * @param maxActivationsPerMinute grants per minute; null for no cap
   * @throws RotaException.Invalid for a bad name or an out-of-range value
   */
  public JsonNode set(
      String name, int weight, Integer maxConcurrent, Integer maxActivationsPerMinute) {
    ObjectNode request = Requests.tenant(weight, maxConcurrent, maxActivationsPerMinute);
    return read(calls.call("PUT", path(name), body(request), Retry.ANY), JsonNode.class);
  }

  /**
   * Deletes a tenant that has no agents.
   *
   * @throws RotaException.Conflict while it has agents, for {@code default}, and for a tenant
   *     declared in the node's configuration
   * @throws RotaException.NotFound for an unknown tenant
   */
  public void delete(String name) {
    calls.call("DELETE", path(name), null, Retry.ANY_DELETE);
  }

  private static String path(String name) {
    return "admin/tenants/" + encode(name);
  }
}
