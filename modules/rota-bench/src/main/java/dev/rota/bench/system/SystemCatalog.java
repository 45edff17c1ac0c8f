package dev.rota.bench.system;

import dev.rota.bench.graphile.GraphileProvider;
import dev.rota.bench.graphile.GraphileSettings;
import dev.rota.bench.rota.RotaProvider;
import dev.rota.bench.seedsql.SeedSqlProvider;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Supplier;

/** Every system the bench knows, by command-line name, in report order. */
public final class SystemCatalog {

  public static final String ROTA = "rota";
  public static final String ROTA_HTTP = "rota-http";

  private static final Map<String, Supplier<BenchSystemProvider>> PROVIDERS = new LinkedHashMap<>();

  static {
    PROVIDERS.put(ROTA, () -> new RotaProvider(false));
    PROVIDERS.put(ROTA_HTTP, () -> new RotaProvider(true));
    PROVIDERS.put(SeedSqlProvider.NAME, SeedSqlProvider::new);
    PROVIDERS.put(
        GraphileSettings.DEFAULT.systemName(),
        () -> new GraphileProvider(GraphileSettings.DEFAULT));
    PROVIDERS.put(
        GraphileSettings.TUNED.systemName(), () -> new GraphileProvider(GraphileSettings.TUNED));
  }

  private SystemCatalog() {}

  public static List<String> names() {
    return List.copyOf(PROVIDERS.keySet());
  }

  /** A provider for {@code name}; unknown names are refused with the list of known ones. */
  public static BenchSystemProvider provider(String name) {
    Supplier<BenchSystemProvider> supplier = PROVIDERS.get(name);
    if (supplier == null) {
      throw new IllegalArgumentException(
          "unknown system '" + name + "'; known: " + String.join(", ", names()));
    }
    return supplier.get();
  }
}
