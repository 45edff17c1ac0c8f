package dev.rota.faults.harness;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Comparator;
import java.util.HashMap;
import java.util.Map;

/**
 * One node from the runnable jar forming its own cluster, for the tests that kill it and start it
 * again on the same data ({@link KillWhileAcknowledgingTest}, {@link
 * KillBetweenCompletionAndDeliveryTest}): where its files go, how it is made, and when it is ready.
 */
final class SingleNode {
  private static final Duration READY_TIMEOUT = Duration.ofSeconds(120);

  private SingleNode() {}

  /** A single node forming its own cluster, with its data under {@code dir}. */
  static NodeProcess create(Path dir, Path config, Map<String, String> database) {
    deleteRecursively(dir.resolve("node")); // a fresh database, not the last run's
    int http = FaultCluster.freePort();
    int management = FaultCluster.freePort();
    int cluster = FaultCluster.freePort();
    Map<String, String> env = new HashMap<>(database);
    env.put("ROTA_CLUSTER_HOST", "127.0.0.1");
    env.put("ROTA_CLUSTER_PORT", Integer.toString(cluster));
    env.put("ROTA_HTTP_PORT", Integer.toString(http));
    env.put("ROTA_MANAGEMENT_PORT", Integer.toString(management));
    return new NodeProcess(
        1, http, management, cluster, jar(), config.toAbsolutePath(), dir.resolve("node"), env);
  }

  /** Until {@code /ready} is 200 and the API answers a lookup (404 is an answer). */
  static void awaitReady(RotaApi api, NodeProcess node) {
    long deadline = System.nanoTime() + READY_TIMEOUT.toNanos();
    while (System.nanoTime() < deadline) {
      if (!node.alive()) {
        throw new IllegalStateException(
            node + " exited with " + node.awaitExit(Duration.ZERO) + " while starting");
      }
      try {
        if (api.send(node.managementPort(), "GET", "/ready", null, Duration.ofSeconds(2)).status()
            == 200) {
          int status =
              api.send(node.httpPort(), "GET", "/v1/agents/probe", null, Duration.ofSeconds(3))
                  .status();
          if (status == 200 || status == 404) {
            return;
          }
        }
      } catch (IOException notYet) {
        // Not listening yet.
      }
      FaultCluster.sleep(Duration.ofMillis(100));
    }
    throw new IllegalStateException(node + " was not ready within " + READY_TIMEOUT);
  }

  /** SIGKILL, and the process gone. */
  static void kill(NodeProcess node) {
    node.kill9();
    if (node.awaitExit(Duration.ofSeconds(10)).isEmpty()) {
      throw new IllegalStateException(node + " did not die on SIGKILL");
    }
  }

  static Path out() {
    return Path.of(System.getProperty("rota.faults.out", "target/faults"));
  }

  /** A file of the repository's {@code config/}, next to the cluster node's overlay. */
  static Path config(String name) {
    return Path.of(System.getProperty("rota.faults.config", "../../config/cluster-node.conf"))
        .toAbsolutePath()
        .resolveSibling(name);
  }

  private static Path jar() {
    return Path.of(System.getProperty("rota.faults.jar", "../rota-server/target/rota-server.jar"))
        .toAbsolutePath();
  }

  private static void deleteRecursively(Path dir) {
    if (!Files.exists(dir)) {
      return;
    }
    try (var paths = Files.walk(dir)) {
      for (Path path : paths.sorted(Comparator.reverseOrder()).toList()) {
        Files.delete(path);
      }
    } catch (IOException e) {
      throw new IllegalStateException("cannot delete " + dir + ": " + e, e);
    }
  }
}
