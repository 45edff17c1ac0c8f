package dev.rota.server;

import com.typesafe.config.Config;
import com.typesafe.config.ConfigException;
import com.typesafe.config.ConfigFactory;
import com.typesafe.config.ConfigResolveOptions;
import com.typesafe.config.ConfigResolver;
import com.typesafe.config.ConfigValue;
import com.typesafe.config.ConfigValueFactory;
import dev.rota.cluster.system.SessionLimits;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Loads a node's configuration: the given overrides, then system properties, then {@code
 * application.conf} (or the overlay named by {@code -Dconfig.file}), then the libraries' reference
 * configs. {@code ${?ROTA_...}} substitutions read the environment.
 *
 * <p>Two values are derived after loading: {@code rota.data-dir} is made absolute (H2 refuses
 * implicitly relative paths, and logs should say where the data is), and {@code
 * rota.cluster.seed-nodes} becomes {@code pekko.cluster.seed-nodes} (and, on the first seed node,
 * {@code rota.cluster.first-seed-timeout} its {@code pekko.cluster.seed-node-timeout}).
 */
public final class RotaConfig {
  /** The actor system name; part of every cluster address ({@code pekko://rota@host:port}). */
  public static final String SYSTEM_NAME = "rota";

  private RotaConfig() {}

  /** The configuration of a node, with {@code overrides} taking precedence over everything. */
  public static Config load(Config overrides) {
    return load(overrides, System.getenv());
  }

  /** As {@link #load(Config)}, with {@code environment} in place of the process environment. */
  public static Config load(Config overrides, Map<String, String> environment) {
    ConfigResolveOptions options =
        ConfigResolveOptions.defaults()
            .setUseSystemEnvironment(false)
            .appendResolver(new EnvironmentResolver(environment, null));
    Config unresolved =
        overrides
            .withFallback(ConfigFactory.defaultOverrides())
            .withFallback(ConfigFactory.defaultApplication())
            .withFallback(ConfigFactory.defaultReference());
    try {
      Config first = unresolved.resolve(options);
      return derivedSettings(first).withFallback(unresolved).resolve(options);
    } catch (ConfigException e) {
      throw new StartupException("invalid configuration: " + e.getMessage(), e);
    }
  }

  private static Config derivedSettings(Config config) {
    Map<String, Object> derived = new HashMap<>();
    derived.put(
        "rota.data-dir",
        Path.of(config.getString("rota.data-dir")).toAbsolutePath().normalize().toString());
    List<String> seedNodes =
        SeedNodes.parse(config.getString("rota.cluster.seed-nodes"), SYSTEM_NAME);
    if (!seedNodes.isEmpty()) {
      derived.put("pekko.cluster.seed-nodes", seedNodes);
      if (seedNodes.size() > 1 && SeedNodes.isSelf(seedNodes.get(0), config, SYSTEM_NAME)) {
        // The first seed node joins itself, forming a new cluster, when the other seeds do not
        // answer within seed-node-timeout. Restarted while the others run, a slow start could
        // miss their answers by a moment and form a second cluster on the same database
        // (decision 16); the others answer at once when they are up, so waiting longer costs
        // only a cold start without them.
        derived.put(
            "pekko.cluster.seed-node-timeout",
            config.getDuration("rota.cluster.first-seed-timeout").toMillis() + "ms");
      }
    }
    if (config.getBoolean("rota.cluster.tls.enabled")) {
      // Artery over TLS with mutual authentication; the stores are named in cluster.conf.
      for (String store : List.of("key-store", "trust-store")) {
        String file = config.getString("rota.cluster.tls." + store);
        if (file.isBlank() || !java.nio.file.Files.isReadable(Path.of(file))) {
          throw new StartupException(
              "rota.cluster.tls.enabled is on but rota.cluster.tls."
                  + store
                  + " ("
                  + (file.isBlank() ? "unset" : file)
                  + ") is not a readable file");
        }
      }
      derived.put("pekko.remote.artery.transport", "tls-tcp");
    }
    if (SessionLimits.appliesTo(config.getString("rota.db.url"))) {
      // The persistence plugin's Slick pools get the same session bounds as the node's own.
      Map<String, String> session = SessionLimits.from(config).postgresProperties();
      derived.put("pekko-persistence-jdbc.shared-databases.slick.db.properties", session);
      derived.put("pekko-persistence-jdbc.shared-databases.slick-query.db.properties", session);
    }
    return ConfigFactory.parseMap(derived, "derived by RotaConfig");
  }

  /** Answers substitutions the config itself cannot, such as {@code ${?ROTA_HTTP_PORT}}. */
  private record EnvironmentResolver(Map<String, String> environment, ConfigResolver fallback)
      implements ConfigResolver {
    @Override
    public ConfigValue lookup(String path) {
      String value = environment.get(path);
      if (value != null) {
        return ConfigValueFactory.fromAnyRef(value, "environment variable " + path);
      }
      return fallback == null ? null : fallback.lookup(path);
    }

    @Override
    public ConfigResolver withFallback(ConfigResolver next) {
      return new EnvironmentResolver(
          environment, fallback == null ? next : fallback.withFallback(next));
    }
  }
}
