package dev.rota.server.cluster;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.typesafe.config.Config;
import com.typesafe.config.ConfigFactory;
import dev.rota.server.RotaConfig;
import dev.rota.server.StartupException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.apache.pekko.actor.typed.ActorSystem;
import org.apache.pekko.actor.typed.javadsl.Behaviors;
import org.apache.pekko.cluster.MemberStatus;
import org.apache.pekko.cluster.typed.Cluster;
import org.apache.pekko.cluster.typed.Join;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Artery over TLS as a node configures it from {@code ROTA_CLUSTER_TLS*}: two nodes holding the
 * cluster's key form a cluster over {@code tls-tcp} with mutual authentication; a node whose key
 * the cluster does not trust cannot join. Keys are made with the JDK's keytool.
 */
class ArteryTlsClusterTest {
  private static final String PASSWORD = "test-store-pass";
  @TempDir Path tmp;
  private final List<ActorSystem<?>> systems = new ArrayList<>();

  @AfterEach
  void stop() {
    systems.forEach(ActorSystem::terminate);
    for (ActorSystem<?> system : systems) {
      try {
        system.getWhenTerminated().toCompletableFuture().get(30, TimeUnit.SECONDS);
      } catch (Exception e) {
        // best effort
      }
    }
  }

  private static void keytool(String... args) throws Exception {
    Path keytool = Path.of(System.getProperty("java.home"), "bin", "keytool");
    assertTrue(Files.isExecutable(keytool), "this test needs the JDK's keytool at " + keytool);
    List<String> command = new ArrayList<>(List.of(keytool.toString()));
    command.addAll(List.of(args));
    Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
    String output = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertTrue(p.waitFor(60, TimeUnit.SECONDS), "keytool did not finish");
    assertEquals(0, p.exitValue(), "keytool " + String.join(" ", args) + ": " + output);
  }

  /**
   * A PKCS12 key store with a self-signed key for {@code name}, and a trust store with its cert.
   */
  private Path[] stores(String name) throws Exception {
    Path keys = tmp.resolve(name + "-keys.p12");
    Path cert = tmp.resolve(name + ".cer");
    Path trust = tmp.resolve(name + "-trust.p12");
    keytool(
        "-genkeypair",
        "-alias",
        name,
        "-keyalg",
        "EC",
        "-groupname",
        "secp256r1",
        "-dname",
        "CN=" + name,
        "-ext",
        "SAN=dns:localhost,ip:127.0.0.1",
        "-validity",
        "2",
        "-storetype",
        "PKCS12",
        "-keystore",
        keys.toString(),
        "-storepass",
        PASSWORD,
        "-keypass",
        PASSWORD);
    keytool(
        "-exportcert",
        "-alias",
        name,
        "-keystore",
        keys.toString(),
        "-storepass",
        PASSWORD,
        "-file",
        cert.toString());
    keytool(
        "-importcert",
        "-noprompt",
        "-alias",
        name,
        "-file",
        cert.toString(),
        "-storetype",
        "PKCS12",
        "-keystore",
        trust.toString(),
        "-storepass",
        PASSWORD);
    return new Path[] {keys, trust};
  }

  /** A node's configuration as Main loads it, from the environment a Secret would give. */
  private Config nodeConfig(Path keyStore, Path trustStore) {
    Map<String, String> environment = new HashMap<>();
    environment.put("ROTA_CLUSTER_TLS", "on");
    environment.put("ROTA_CLUSTER_TLS_KEY_STORE", keyStore.toString());
    environment.put("ROTA_CLUSTER_TLS_TRUST_STORE", trustStore.toString());
    environment.put("ROTA_CLUSTER_TLS_PASSWORD", PASSWORD);
    environment.put("ROTA_CLUSTER_PORT", "0");
    environment.put("ROTA_DATA_DIR", tmp.resolve("data").toString());
    return RotaConfig.load(ConfigFactory.empty(), environment);
  }

  private ActorSystem<Void> start(Config config) {
    ActorSystem<Void> system =
        ActorSystem.create(Behaviors.empty(), RotaConfig.SYSTEM_NAME, config);
    systems.add(system);
    return system;
  }

  private static boolean allUp(ActorSystem<?> system, int members) {
    var state = Cluster.get(system).state();
    int up = 0;
    for (var m : state.getMembers()) {
      if (m.status() == MemberStatus.up()) {
        up++;
      }
    }
    return up == members;
  }

  private static void await(String what, java.util.function.BooleanSupplier condition, Duration d)
      throws InterruptedException {
    long deadline = System.nanoTime() + d.toNanos();
    while (!condition.getAsBoolean()) {
      if (System.nanoTime() > deadline) {
        throw new AssertionError("not within " + d + ": " + what);
      }
      Thread.sleep(100);
    }
  }

  @Test
  void twoNodesWithTheClustersKeyFormAClusterOverTlsAndAStrangerCannotJoin() throws Exception {
    Path[] cluster = stores("rota-cluster");
    Config config = nodeConfig(cluster[0], cluster[1]);
    assertEquals("tls-tcp", config.getString("pekko.remote.artery.transport"));
    assertTrue(
        config.getBoolean(
            "pekko.remote.artery.ssl.config-ssl-engine.require-mutual-authentication"));

    ActorSystem<Void> first = start(config);
    Cluster.get(first).manager().tell(Join.create(Cluster.get(first).selfMember().address()));
    await("the first node is up", () -> allUp(first, 1), Duration.ofSeconds(20));
    ActorSystem<Void> second = start(config);
    Cluster.get(second).manager().tell(Join.create(Cluster.get(first).selfMember().address()));
    await("both nodes are up", () -> allUp(first, 2) && allUp(second, 2), Duration.ofSeconds(30));

    // A node with a key of its own (trusting the cluster's certificate, even) is refused: the
    // cluster's nodes do not trust its certificate.
    Path[] stranger = stores("stranger");
    Files.copy(cluster[1], tmp.resolve("stranger-trusts-cluster.p12"));
    ActorSystem<Void> third =
        start(nodeConfig(stranger[0], tmp.resolve("stranger-trusts-cluster.p12")));
    Cluster.get(third).manager().tell(Join.create(Cluster.get(first).selfMember().address()));
    Thread.sleep(8_000);
    int members = 0;
    for (var ignored : Cluster.get(first).state().getMembers()) {
      members++;
    }
    assertEquals(2, members, "members of the cluster");
    assertTrue(allUp(first, 2), "the cluster is still its two nodes");
    assertTrue(
        Cluster.get(third).selfMember().status() != MemberStatus.up(),
        "the stranger did not become a member");
  }

  @Test
  void tlsWithoutReadableStoresStopsTheStart() {
    var error =
        assertThrows(
            StartupException.class,
            () -> nodeConfig(tmp.resolve("missing.p12"), tmp.resolve("missing-trust.p12")));
    assertTrue(error.getMessage().contains("rota.cluster.tls.key-store"), error.getMessage());
  }
}
