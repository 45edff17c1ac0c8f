package dev.rota.cluster.runner;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.typesafe.config.ConfigFactory;
import com.typesafe.config.ConfigValueFactory;
import dev.rota.cluster.agent.AgentChangeListener;
import dev.rota.cluster.runner.TestCluster.Run;
import dev.rota.core.model.FailureAction;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.apache.pekko.actor.testkit.typed.javadsl.ActorTestKit;
import org.apache.pekko.actor.testkit.typed.javadsl.LogCapturingExtension;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/** The process executor with real {@code sh -c} scripts, run by a runner against real agents. */
@ExtendWith(LogCapturingExtension.class)
class ProcessExecutorTest {
  private static final String ADMIN_TOKEN = "adm1n-t0ken-9f2c";
  private static final String DB_PASSWORD = "db-pa55word-41e7";
  // A node configured with secrets, as ROTA_API_TOKENS and ROTA_DB_PASSWORD would configure it.
  private static final ActorTestKit KIT =
      TestCluster.start(
          "ProcessExecutorTest",
          "rota.http.tokens-list = \""
              + ADMIN_TOKEN
              + ":admin;other-t0ken-5d:runner\"\n"
              + "rota.db.password = \""
              + DB_PASSWORD
              + "\"",
          AgentChangeListener.NONE);
  private static final ObjectMapper JSON = new ObjectMapper();

  @TempDir Path tmp;

  @AfterAll
  static void shutdown() {
    KIT.shutdownTestKit();
  }

  /** A process executor made the way a pool makes it: executor-settings over the defaults. */
  private static Executor process(String script, Map<String, Object> settings) {
    Map<String, Object> executorSettings = new HashMap<>(settings);
    executorSettings.put("command", List.of("sh", "-c", script));
    var pool = Map.of("name", "p", "executor", "process", "executor-settings", executorSettings);
    var config =
        ConfigFactory.empty()
            .withValue("rota.runners.pools", ConfigValueFactory.fromIterable(List.of(pool)))
            .withFallback(KIT.system().settings().config());
    RunnerSettings runners = RunnerSettings.from(config);
    return ExecutorFactory.standard(KIT.system(), runners).create(runners.pools().get(0));
  }

  private static Run run(String agentId, String script, Map<String, Object> settings)
      throws Exception {
    return TestCluster.runOnce(KIT, agentId, null, process(script, settings));
  }

  @Test
  void readsTheAssignmentOnStdinAndCompletesWithItsJsonStdout() throws Exception {
    Run run =
        run(
            "proc-ok",
            "grep -q '\"agentId\":\"proc-ok\"' && echo"
                + " \"{\\\"agent\\\": \\\"$ROTA_AGENT_ID\\\", \\\"attempt\\\": $ROTA_ATTEMPT}\"",
            Map.of());

    assertEquals(
        new Outcome.Completed(JSON.readTree("{\"agent\": \"proc-ok\", \"attempt\": 1}")),
        run.outcome());
    assertEquals(1, run.agent().activationCount());
    assertTrue(run.agent().inbox().isEmpty());
  }

  @Test
  void completesWithPlainTextStdoutWrappedAndRunsInItsWorkingDir() throws Exception {
    Run run = run("proc-text", "cat > /dev/null; pwd", Map.of("working-dir", tmp.toString()));

    assertEquals(
        new Outcome.Completed(JSON.createObjectNode().put("stdout", tmp.toRealPath() + "\n")),
        run.outcome());
    assertEquals(1, run.agent().activationCount());
  }

  @Test
  void nonZeroExitFailsWithRetryAndTheLastTwoKilobytesOfStderr() throws Exception {
    Run run =
        run(
            "proc-exit",
            "head -c 5000 /dev/zero | tr '\\0' x >&2; echo >&2; echo boom >&2; exit 1",
            Map.of());

    var failed = assertInstanceOf(Outcome.Failed.class, run.outcome());
    assertEquals(FailureAction.RETRY, failed.action());
    assertTrue(failed.error().startsWith("exit 1: "), failed.error());
    assertTrue(failed.error().endsWith("xxx\nboom"), failed.error());
    assertTrue(failed.error().length() <= "exit 1: ".length() + 2048, "only the tail");
    assertEquals(1, run.agent().inbox().get(0).attempts(), "retry uses up an attempt");
    assertEquals("retry", run.agent().history().get(0).details().get("action"));
  }

  @Test
  void pastItsTimeoutTheProcessAndItsChildrenAreKilledAndTheActivationRetried() throws Exception {
    var run =
        java.util.concurrent.CompletableFuture.supplyAsync(
            () -> {
              try {
                return run("proc-slow", "sleep 3041 & wait", Map.of("timeout", "3s"));
              } catch (Exception e) {
                throw new IllegalStateException(e);
              }
            });
    ProcessHandle child = awaitDescendant("3041");

    assertEquals(Outcome.retry("timed out after 3s"), run.get(30, TimeUnit.SECONDS).outcome());
    assertEquals(1, run.get().agent().inbox().get(0).attempts());
    KIT.createTestProbe()
        .awaitAssert(
            () -> {
              assertFalse(child.isAlive(), "the script's child was killed too");
              return null;
            });
  }

  @Test
  void scriptAskingToSnoozeSnoozesTheAgentWithoutUsingAnAttempt() throws Exception {
    Run run =
        run(
            "proc-snooze",
            "echo '{\"action\": \"snooze\", \"snoozeSeconds\": 60}'; exit 75",
            Map.of());

    assertEquals(new Outcome.Failed(FailureAction.SNOOZE, "exit 75", 60), run.outcome());
    assertEquals(0, run.agent().inbox().get(0).attempts());
    assertTrue(run.agent().snoozedUntil().isAfter(Instant.now().plusSeconds(50)));
  }

  @Test
  void scriptAskingToDiscardDeadLettersTheNotificationsAtOnce() throws Exception {
    Run run =
        run(
            "proc-discard",
            "echo '{\"action\": \"discard\", \"error\": \"bad input\"}' ; exit 2",
            Map.of());

    assertEquals(new Outcome.Failed(FailureAction.DISCARD, "bad input", 0), run.outcome());
    assertTrue(run.agent().inbox().isEmpty());
    assertEquals(1, run.agent().deadLetters().size());
    assertEquals("discard: bad input", run.agent().deadLetters().get(0).reason());
  }

  @Test
  void cancellingARunKillsItsProcessTree() throws Exception {
    Executor executor = process("sleep 3042 & wait", Map.of());
    var run = executor.execute(TestCluster.activation("proc-cancel")).toCompletableFuture();
    ProcessHandle child = awaitDescendant("3042");

    run.cancel(true);

    KIT.createTestProbe()
        .awaitAssert(
            () -> {
              assertFalse(child.isAlive());
              return null;
            });
  }

  /**
   * The process of this JVM's tree with {@code argument} among its arguments: the script's child,
   * seen from the node (inside the sandbox it has a pid of its own namespace).
   */
  private static ProcessHandle awaitDescendant(String argument) {
    return KIT.createTestProbe()
        .awaitAssert(
            Duration.ofSeconds(10),
            () ->
                ProcessHandle.current()
                    .descendants()
                    .filter(
                        p ->
                            p.info()
                                .arguments()
                                .map(a -> List.of(a).contains(argument))
                                .orElse(false))
                    .findFirst()
                    .orElseThrow(() -> new AssertionError("no process with " + argument)));
  }

  @Test
  void theProcessGetsACleanEnvironmentWithOnlyPassEnvAndEnv() throws Exception {
    assertFalse(System.getenv().isEmpty(), "the test JVM has no environment to hide");
    Run run =
        run(
            "proc-env",
            "cat > /dev/null; printenv",
            Map.of("env", Map.of("GIVEN", "yes"), "pass-env", List.of("PATH", "NOT_SET_ANYWHERE")));

    var completed = assertInstanceOf(Outcome.Completed.class, run.outcome());
    String printed = completed.result().get("stdout").asText();
    var names =
        printed.lines().filter(l -> l.contains("=")).map(l -> l.substring(0, l.indexOf('=')));
    // What sh itself exports (PWD, SHLVL, _) aside, exactly pass-env, env and Rota's own.
    var shells = List.of("PWD", "OLDPWD", "SHLVL", "_");
    var expected =
        List.of(
            "GIVEN",
            "PATH",
            "ROTA_AGENT_ID",
            "ROTA_LEASE_ID",
            "ROTA_ACTIVATION_KIND",
            "ROTA_ATTEMPT",
            "ROTA_ACTIVATION_DIR");
    assertEquals(
        new java.util.TreeSet<>(expected),
        names
            .filter(n -> !shells.contains(n))
            .collect(java.util.stream.Collectors.toCollection(java.util.TreeSet::new)),
        printed);
    assertTrue(printed.contains("PATH=" + System.getenv("PATH") + "\n"), printed);
  }

  @Test
  void printenvOnStderrPutsNoTokenNorPasswordInTheHistory() throws Exception {
    // Even when an operator hands the secrets to the process (env here; pass-env alike), what the
    // process prints of them is redacted before the agent's history records it.
    Run run =
        run(
            "proc-printenv",
            "printenv >&2; exit 1",
            Map.of("env", Map.of("LEAKED_TOKENS", ADMIN_TOKEN, "PGPASS", DB_PASSWORD)));

    var failed = assertInstanceOf(Outcome.Failed.class, run.outcome());
    String history = String.valueOf(run.agent().history());
    String error = failed.error();
    assertTrue(error.contains("LEAKED_TOKENS=[redacted]"), error);
    assertTrue(error.contains("PGPASS=[redacted]"), error);
    for (String text : List.of(error, history)) {
      assertFalse(text.contains(ADMIN_TOKEN), "the admin token is in: " + text);
      assertFalse(text.contains(DB_PASSWORD), "the database password is in: " + text);
    }
  }

  @Test
  void secretsInAJsonResultAreRedactedToo() throws Exception {
    Run run =
        run(
            "proc-json-secret",
            "cat > /dev/null; echo \"{\\\"t\\\": \\\"x$T\\\"}\"",
            Map.of("env", Map.of("T", "other-t0ken-5d")));

    assertEquals(new Outcome.Completed(JSON.readTree("{\"t\": \"x[redacted]\"}")), run.outcome());
  }
}
