package dev.rota.cluster.tenant;

import com.typesafe.config.Config;
import java.time.Duration;

/**
 * {@code rota.tenant-caps}: the times of the per-tenant caps (docs/configuration.md).
 *
 * @param askTimeout how long an agent waits for its tenant's gate before it denies the claim
 * @param checkEvery how often a gate looks for permits whose lease is to be asked about
 * @param checkGrace added to a lease's length before its permit's lease is first asked about, so
 *     that a release on its way is not overtaken by the question
 * @param hold how long a dispatcher passes over a tenant at its concurrency cap (or whose gate did
 *     not answer) before it tries that tenant's agents again
 */
public record TenantCapSettings(
    Duration askTimeout, Duration checkEvery, Duration checkGrace, Duration hold) {

  public static TenantCapSettings from(Config config) {
    Config c = config.getConfig("rota.tenant-caps");
    return new TenantCapSettings(
        c.getDuration("ask-timeout"),
        c.getDuration("check-every"),
        c.getDuration("check-grace"),
        c.getDuration("hold"));
  }
}
