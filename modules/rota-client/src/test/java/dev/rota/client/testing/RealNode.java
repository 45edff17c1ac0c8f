package dev.rota.client.testing;

import com.typesafe.config.Config;
import com.typesafe.config.ConfigFactory;
import dev.rota.server.RotaConfig;
import dev.rota.server.RotaNode;
import dev.rota.server.testing.Databases;
import dev.rota.server.testing.TestDatabase;
import java.net.URI;
import java.util.Map;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * A real Rota node, started in-process once per test JVM on an H2 database in a temporary
 * directory, on free loopback ports and without tokens; stopped after the last test. Test classes
 * use it with {@code @ExtendWith(RealNode.class)} and reach it through {@link #uri()}. If the node
 * cannot start, every test using it fails with the node's one-line reason.
 */
public final class RealNode implements BeforeAllCallback {
  private static volatile Started started;

  @Override
  public void beforeAll(ExtensionContext context) {
    context
        .getRoot()
        .getStore(ExtensionContext.Namespace.GLOBAL)
        .getOrComputeIfAbsent(RealNode.class, key -> start(), Started.class);
  }

  /** The node's API, e.g. {@code http://127.0.0.1:43121/}. */
  public static URI uri() {
    if (started == null) {
      throw new IllegalStateException("annotate the test class with @ExtendWith(RealNode.class)");
    }
    return URI.create("http://127.0.0.1:" + started.node.httpPort() + "/");
  }

  private static Started start() {
    TestDatabase database = Databases.h2();
    Config overrides =
        ConfigFactory.parseMap(
                Map.of(
                    "rota.http.port", 0,
                    "rota.http.interface", "127.0.0.1",
                    "rota.management.port", 0,
                    "rota.cluster.port", 0,
                    "rota.db.max-pool-size", 4,
                    // A retry by the runner that failed it comes after a second, not 30.
                    "rota.runner-health.retry-avoid-window", "1s"))
            .withFallback(database.config());
    try {
      RotaNode node = RotaNode.startWith(RotaConfig.load(overrides, Map.of()));
      started = new Started(node, database);
      return started;
    } catch (RuntimeException e) {
      database.close();
      throw new IllegalStateException(
          "could not start a Rota node for the tests: " + e.getMessage(), e);
    }
  }

  /** Stops the node and drops its database after the last test. */
  record Started(RotaNode node, TestDatabase database)
      implements ExtensionContext.Store.CloseableResource {
    @Override
    public void close() {
      try {
        node.stop();
      } finally {
        database.close();
      }
    }
  }
}
