package dev.rota.http.api;

/**
 * One tenant as an admin sees it: what was set, its agents' figures from the read model, and its
 * last minute counted by every node.
 *
 * @param maxConcurrent null: no cap
 * @param maxActivationsPerMinute null: no cap
 * @param agents registered agents
 * @param unread unread notifications over its agents
 * @param leased leases its agents hold
 * @param activationsPerMinute leases granted to its agents over the last minute
 * @param share its share of runner time over the last minute, against its fair share
 * @param oldestUnreadAgeSeconds how long its oldest unread notification has waited; 0 without one
 */
public record TenantView(
    String tenant,
    int weight,
    Integer maxConcurrent,
    Integer maxActivationsPerMinute,
    long agents,
    long unread,
    long leased,
    long activationsPerMinute,
    Share share,
    long oldestUnreadAgeSeconds) {

  /**
   * @param actual the tenant's part of the runner time all tenants' leases took over the last
   *     minute (leases that ended and leases held), 0–1; 0 when no lease ran
   * @param fair its weight over the weights of the tenants with work (unread notifications) or
   *     leases, 0–1; 0 when it has neither
   */
  public record Share(double actual, double fair) {}
}
