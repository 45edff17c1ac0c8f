package dev.rota.cluster.runner;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.typesafe.config.ConfigFactory;
import com.typesafe.config.ConfigValueFactory;
import dev.rota.cluster.agent.AgentChangeListener;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermission;
import java.time.Duration;
import java.util.Base64;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.apache.pekko.actor.testkit.typed.javadsl.ActorTestKit;
import org.apache.pekko.actor.testkit.typed.javadsl.LogCapturingExtension;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * An agent process that goes looking for the node's secrets finds none of them: not the node's
 * environment through {@code /proc} (its parent's, or the node's own pid), not the token file nor
 * the keystore the node is configured with, not the directory of another activation running at the
 * same moment. The probe prints what it read base64-encoded, so the redaction of outcomes (a second
 * line) cannot hide a leak from this test.
 */
@ExtendWith(LogCapturingExtension.class)
class ProcessSandboxTest {
  /** Planted in the test JVM's environment by the module's Surefire configuration. */
  private static final String NODE_ENV_SECRET = "node-env-s3cret-7b1d";

  private static final String FILE_TOKEN = "file-t0ken-c41e";
  private static final String KEYSTORE_SECRET = "keystore-bytes-91aa";
  private static final Path SECRETS = secretsDir();
  private static final Path TOKEN_FILE = SECRETS.resolve("tokens");
  private static final Path KEY_STORE = SECRETS.resolve("keystore.p12");

  private static final ActorTestKit KIT =
      TestCluster.start(
          "ProcessSandboxTest",
          "rota.http.tokens-file = \""
              + TOKEN_FILE
              + "\"\n"
              + "rota.cluster.tls.key-store = \""
              + KEY_STORE
              + "\"\n"
              + "rota.cluster.tls.trust-store = \""
              + KEY_STORE
              + "\"",
          AgentChangeListener.NONE);

  private static Path secretsDir() {
    try {
      // Outside /tmp: the node's secret files sit where the node keeps them, not in scratch space.
      Path dir = Files.createTempDirectory(Path.of("target").toAbsolutePath(), "node-secrets-");
      Files.writeString(dir.resolve("tokens"), FILE_TOKEN + ":admin\n");
      Files.writeString(dir.resolve("keystore.p12"), KEYSTORE_SECRET);
      return dir;
    } catch (IOException e) {
      throw new IllegalStateException(e);
    }
  }

  @AfterAll
  static void shutdown() {
    KIT.shutdownTestKit();
  }

  private static Executor process(String script) {
    return process(script, Map.of());
  }

  private static Executor process(String script, Map<String, Object> settings) {
    Map<String, Object> executorSettings = new HashMap<>(settings);
    executorSettings.put("command", List.of("sh", "-c", script));
    executorSettings.put(
        "env",
        Map.of(
            "NODE_PID", String.valueOf(ProcessHandle.current().pid()),
            "TOKEN_FILE", TOKEN_FILE.toString(),
            "KEY_STORE", KEY_STORE.toString(),
            "SECRETS", SECRETS.toString()));
    var pool = Map.of("name", "p", "executor", "process", "executor-settings", executorSettings);
    var config =
        ConfigFactory.empty()
            .withValue("rota.runners.pools", ConfigValueFactory.fromIterable(List.of(pool)))
            .withFallback(KIT.system().settings().config());
    RunnerSettings runners = RunnerSettings.from(config);
    return ExecutorFactory.standard(KIT.system(), runners).create(runners.pools().get(0));
  }

  /** Reads everything it can of the node's secrets and prints it base64-encoded, one per line. */
  private static final String PROBE =
      """
      cat > /dev/null
      tmp=${TMPDIR:-/tmp}
      for f in /proc/$PPID/environ /proc/$NODE_PID/environ /proc/$NODE_PID/cmdline \
               "$TOKEN_FILE" "$KEY_STORE" "$SECRETS"/* \
               "$tmp"/rota-activation-*/* "$tmp"/rota-activations/*/*; do
        [ -f "$f" ] || continue
        printf '%s ' "$f"; cat "$f" 2>/dev/null | base64 | tr -d '\\n'; echo
      done
      """;

  @Test
  void theNodeSecretsItsFilesAndOtherActivationsAreOutOfAProcesssReach() throws Exception {
    assertEquals(
        NODE_ENV_SECRET,
        System.getenv("ROTA_SANDBOX_TEST_SECRET"),
        "Surefire plants the secret in the node's environment");
    // Another tenant's activation, running while the probe looks.
    var other =
        process("cat > /dev/null; sleep 3031")
            .execute(TestCluster.activation("sbx-other-tenant"))
            .toCompletableFuture();
    awaitRunning("3031");

    var probed =
        process(PROBE)
            .execute(TestCluster.activation("sbx-probe"))
            .toCompletableFuture()
            .get(30, TimeUnit.SECONDS);
    other.cancel(true);

    var completed = assertInstanceOf(Outcome.Completed.class, probed);
    String read = decoded(completed.result().get("stdout").asText());
    for (String secret :
        List.of(NODE_ENV_SECRET, FILE_TOKEN, KEYSTORE_SECRET, "sbx-other-tenant")) {
      assertFalse(read.contains(secret), "the process read " + secret + ":\n" + read);
    }
  }

  @Test
  void aWorkingDirectoryOrWritablePathHoldingTheSecretsDoesNotShowThemAgain() throws Exception {
    var probed =
        process(
                PROBE,
                Map.of(
                    "working-dir",
                    SECRETS.getParent().toString(),
                    "sandbox-writable-paths",
                    List.of(SECRETS.toString())))
            .execute(TestCluster.activation("sbx-probe-wd"))
            .toCompletableFuture()
            .get(30, TimeUnit.SECONDS);

    var completed = assertInstanceOf(Outcome.Completed.class, probed);
    String read = decoded(completed.result().get("stdout").asText());
    for (String secret : List.of(FILE_TOKEN, KEYSTORE_SECRET)) {
      assertFalse(read.contains(secret), "the process read " + secret + ":\n" + read);
    }
  }

  @Test
  void eachActivationHasAPrivateDirectoryOfItsOwn() throws Exception {
    var outcome =
        process(
                "cat > /dev/null; d=${ROTA_ACTIVATION_DIR:?unset}; echo mine > \"$d/f\" && stat -c %a \"$d\"")
            .execute(TestCluster.activation("sbx-dir"))
            .toCompletableFuture()
            .get(30, TimeUnit.SECONDS);

    var completed = assertInstanceOf(Outcome.Completed.class, outcome);
    assertEquals(700, completed.result().asInt(), completed.result().toString());
  }

  @Test
  void activationDirectoriesLiveInARootOnlyTheNodeCanEnter() throws Exception {
    process("cat > /dev/null")
        .execute(TestCluster.activation("sbx-root"))
        .toCompletableFuture()
        .get(30, TimeUnit.SECONDS);
    Path root = Path.of(System.getProperty("java.io.tmpdir"), "rota-activations");

    assertEquals(
        Set.of(
            PosixFilePermission.OWNER_READ,
            PosixFilePermission.OWNER_WRITE,
            PosixFilePermission.OWNER_EXECUTE),
        Files.getPosixFilePermissions(root));
  }

  @Test
  void aPoolConfiguredForBwrapThatCannotRunItRefusesToStartSayingWhy() {
    var refused =
        assertThrows(
            IllegalArgumentException.class,
            () -> process("true", Map.of("bwrap-path", "/nonexistent/bwrap")));

    assertTrue(refused.getMessage().contains("pool p"), refused.getMessage());
    assertTrue(refused.getMessage().contains("install bubblewrap"), refused.getMessage());
    assertTrue(refused.getMessage().contains("sandbox = none"), refused.getMessage());
  }

  /** Waits until a process of this JVM's tree has {@code marker} among its arguments. */
  private static void awaitRunning(String marker) {
    KIT.createTestProbe()
        .awaitAssert(
            Duration.ofSeconds(10),
            () -> {
              try (Stream<ProcessHandle> tree = ProcessHandle.current().descendants()) {
                assertTrue(
                    tree.anyMatch(
                        p ->
                            p.info()
                                .arguments()
                                .map(a -> List.of(a).contains(marker))
                                .orElse(false)),
                    "no process with " + marker + " yet");
              }
              return null;
            });
  }

  /** Each line "path base64" as "path: text". */
  private static String decoded(String printed) {
    StringBuilder out = new StringBuilder();
    for (String line : printed.split("\n")) {
      int space = line.indexOf(' ');
      if (space < 0) {
        continue;
      }
      byte[] bytes = Base64.getMimeDecoder().decode(line.substring(space + 1));
      out.append(line, 0, space)
          .append(": ")
          .append(new String(bytes, StandardCharsets.UTF_8).replace('\0', ' '))
          .append('\n');
    }
    return out.toString();
  }
}
