package dev.rota.bench.rota;

import dev.rota.bench.system.Availability;
import dev.rota.bench.system.BenchEnvironment;
import dev.rota.bench.system.BenchSystem;
import dev.rota.bench.system.BenchSystemProvider;
import dev.rota.bench.system.SystemCatalog;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * {@code rota} (an in-process node with in-cluster runners) and {@code rota-http} (the same node,
 * external runners over HTTP). Node settings can be overridden for a run with {@code
 * --system-option rota.node.<key>=<value>}, e.g. {@code rota.node.rota.db.max-pool-size=20}.
 */
public final class RotaProvider implements BenchSystemProvider {

  static final String NODE_OPTION_PREFIX = "rota.node.";

  private final boolean overHttp;

  /**
   * {@code overHttp}: external runners over HTTP ({@code rota-http}) instead of in-cluster ones.
   */
  public RotaProvider(boolean overHttp) {
    this.overHttp = overHttp;
  }

  @Override
  public String name() {
    return overHttp ? SystemCatalog.ROTA_HTTP : SystemCatalog.ROTA;
  }

  @Override
  public String description() {
    return overHttp
        ? "one in-process Rota node on PostgreSQL, external runners over HTTP in a JVM of their"
            + " own (long-polling POST /v1/claims, then POST /v1/leases/{id}/complete, keep-alive"
            + " connections)"
        : "one in-process Rota node on PostgreSQL, in-cluster runners (noop executor reporting"
            + " to the bench)";
  }

  @Override
  public Availability prepare(BenchEnvironment environment) {
    return Availability.ok();
  }

  @Override
  public BenchSystem create(BenchEnvironment environment) {
    return overHttp
        ? new RotaHttpSystem(nodeSettings(environment))
        : new RotaSystem(nodeSettings(environment));
  }

  /** {@code --system-option rota.node.<key>=<value>} as node settings. */
  static Map<String, Object> nodeSettings(BenchEnvironment environment) {
    Map<String, Object> settings = new LinkedHashMap<>();
    environment
        .options()
        .forEach(
            (key, value) -> {
              if (key.startsWith(NODE_OPTION_PREFIX)) {
                settings.put(key.substring(NODE_OPTION_PREFIX.length()), value);
              }
            });
    return settings;
  }
}
