package dev.rota.cluster.tenant;

import com.typesafe.config.Config;
import com.typesafe.config.ConfigException;
import com.typesafe.config.ConfigValue;
import dev.rota.core.tenant.TenantSpec;
import dev.rota.core.tenant.TenantTable;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Consumer;
import org.apache.pekko.actor.typed.ActorSystem;
import org.apache.pekko.actor.typed.Extension;
import org.apache.pekko.actor.typed.ExtensionId;

/**
 * This node's view of the tenants: the table every part of the node reads (the dispatcher's share
 * of runner time, the agents' caps, the HTTP routes' tenant checks). It starts from configuration
 * ({@code rota.tenants}) and follows the cluster's tenant directory as it changes; a reader calls
 * {@link #current()} whenever it decides, or {@link #subscribe} to hear of changes.
 */
public final class TenantTables implements Extension {
  private static final Set<String> KEYS =
      Set.of("weight", "max-concurrent", "max-activations-per-minute");

  private final AtomicReference<TenantTable> current;
  private final TenantTable configured;
  private final List<Consumer<TenantTable>> listeners = new CopyOnWriteArrayList<>();

  private TenantTables(TenantTable configured) {
    this.configured = configured;
    this.current = new AtomicReference<>(configured);
  }

  public static TenantTables get(ActorSystem<?> system) {
    return Id.INSTANCE.apply(system);
  }

  /** The table as this node knows it now. */
  public TenantTable current() {
    return current.get();
  }

  /** The tenants declared in configuration: the directory's starting point. */
  public TenantTable configured() {
    return configured;
  }

  /** Replaces the table (the directory's publication) and tells every subscriber. */
  public void update(TenantTable table) {
    current.set(table);
    for (Consumer<TenantTable> listener : listeners) {
      listener.accept(table);
    }
  }

  /** Calls {@code listener} with every later table (on the updating thread: keep it short). */
  public void subscribe(Consumer<TenantTable> listener) {
    listeners.add(listener);
  }

  /**
   * {@code rota.tenants}: an object of tenants by name, each with optional {@code weight} (default
   * 1), {@code max-concurrent} and {@code max-activations-per-minute}. A key the node does not
   * know, or a bad value, stops the start with the path named.
   */
  public static TenantTable fromConfig(Config config) {
    if (!config.hasPath("rota.tenants")) {
      return TenantTable.DEFAULT_ONLY;
    }
    Map<String, TenantSpec> tenants = new LinkedHashMap<>();
    Config section = config.getConfig("rota.tenants");
    for (Map.Entry<String, ConfigValue> entry : config.getObject("rota.tenants").entrySet()) {
      String name = entry.getKey();
      String path = "rota.tenants." + name;
      Config tenant;
      try {
        tenant = section.getConfig(quoted(name));
      } catch (ConfigException.WrongType e) {
        throw new ConfigException.BadValue(path, "a tenant is an object: { weight = 1 }");
      }
      for (String key : tenant.root().keySet()) {
        if (!KEYS.contains(key)) {
          throw new ConfigException.BadValue(
              path + "." + key,
              "unknown tenant setting (known: weight, max-concurrent, max-activations-per-minute)");
        }
      }
      try {
        tenants.put(
            name,
            new TenantSpec(
                name,
                tenant.hasPath("weight") ? tenant.getInt("weight") : 1,
                tenant.hasPath("max-concurrent") ? tenant.getInt("max-concurrent") : null,
                tenant.hasPath("max-activations-per-minute")
                    ? tenant.getInt("max-activations-per-minute")
                    : null));
      } catch (IllegalArgumentException e) {
        throw new ConfigException.BadValue(path, e.getMessage());
      }
    }
    return TenantTable.of(tenants);
  }

  private static String quoted(String name) {
    return "\"" + name + "\"";
  }

  private static final class Id extends ExtensionId<TenantTables> {
    static final Id INSTANCE = new Id();

    @Override
    public TenantTables createExtension(ActorSystem<?> system) {
      return new TenantTables(fromConfig(system.settings().config()));
    }
  }
}
