package dev.rota.cluster.runner.executor;

import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.typesafe.config.Config;
import dev.rota.cluster.runner.Activation;
import dev.rota.cluster.runner.Executor;
import dev.rota.cluster.runner.ExecutorContext;
import dev.rota.cluster.runner.Outcome;
import java.io.File;
import java.io.IOException;
import java.io.InputStream;
import java.io.RandomAccessFile;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.stream.Stream;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs {@code rota.runners.process.command} once per activation, with the assignment JSON on stdin
 * and {@code ROTA_AGENT_ID}, {@code ROTA_LEASE_ID}, {@code ROTA_ACTIVATION_KIND}, {@code
 * ROTA_ATTEMPT} and {@code ROTA_ACTIVATION_DIR} (a directory of its own, 0700, deleted after the
 * activation) in its environment. The environment is otherwise clean: only the node's variables
 * listed in {@code pass-env} and the configured {@code env} map (see {@link #environment}); the
 * process runs confined by a {@link ProcessSandbox} (bubblewrap by default: no view of the node's
 * processes, secret files or other activations); the node's secrets are also removed from what the
 * process hands back ({@code Redactor}).
 *
 * <ul>
 *   <li>Exit 0 completes the activation. The result is stdout parsed as JSON when it is exactly one
 *       JSON value, else {@code {"stdout": "<stdout>"}} (so log to stderr, print only the result).
 *   <li>Any other exit fails it with {@code retry} and the last 2 KB of stderr, unless stdout is a
 *       JSON object naming an action, e.g. {@code {"action": "snooze", "snoozeSeconds": 60}} or
 *       {@code {"action": "discard", "error": "bad input"}} (see {@link OutputJson}).
 *   <li>Past {@code timeout} the process and all its descendants are killed and the activation
 *       fails with {@code retry}; the same happens when the runner gives the activation up.
 * </ul>
 *
 * <p>stdin, stdout and stderr are temporary files, not pipes: no thread sits on a stream, a script
 * that ignores stdin or floods stdout cannot deadlock, and only the short blocking steps (start,
 * file I/O) run on the blocking dispatcher; waiting for the exit costs no thread of ours.
 */
public final class ProcessExecutor implements Executor {
  private static final Logger log = LoggerFactory.getLogger(ProcessExecutor.class);
  private static final int STDERR_TAIL = 2048;

  private final List<String> command;
  private final File workingDir;
  private final Duration timeout;
  private final Map<String, String> env;
  private final List<String> passEnv;
  private final long maxOutput;
  private final java.util.concurrent.Executor blocking;
  private final ProcessSandbox sandbox;

  public ProcessExecutor(ExecutorContext context) {
    Config c = context.config();
    this.command = List.copyOf(c.getStringList("command"));
    if (command.isEmpty()) {
      throw new IllegalArgumentException(
          "pool " + context.pool() + ": executor process needs rota.runners.process.command");
    }
    String dir = c.hasPath("working-dir") ? c.getString("working-dir") : "";
    this.workingDir = dir.isBlank() ? null : new File(dir);
    this.timeout = c.getDuration("timeout");
    this.env = new LinkedHashMap<>();
    if (c.hasPath("env")) {
      c.getObject("env").unwrapped().forEach((k, v) -> env.put(k, String.valueOf(v)));
    }
    this.passEnv = c.hasPath("pass-env") ? List.copyOf(c.getStringList("pass-env")) : List.of();
    this.maxOutput = c.hasPath("max-output") ? c.getBytes("max-output") : 1 << 20;
    this.blocking = context.blocking();
    this.sandbox = ProcessSandbox.from(context.pool(), c, context.system().settings().config());
    sandbox.check();
  }

  @Override
  public CompletionStage<Outcome> execute(Activation activation) {
    CompletableFuture<Outcome> result = new CompletableFuture<>();
    AtomicReference<Process> running = new AtomicReference<>();
    result.whenComplete(
        (outcome, error) -> {
          Process process = running.get();
          if (result.isCancelled() && process != null) {
            killTree(process);
          }
        });
    blocking.execute(() -> start(activation, result, running));
    return result;
  }

  private void start(
      Activation activation, CompletableFuture<Outcome> result, AtomicReference<Process> running) {
    if (result.isDone()) {
      return;
    }
    Path dir;
    Process process;
    try {
      dir = sandbox.newActivationDir();
    } catch (IOException e) {
      result.complete(Outcome.retry("cannot create a temporary directory: " + e.getMessage()));
      return;
    }
    Path stdout = dir.resolve("stdout");
    Path stderr = dir.resolve("stderr");
    try {
      Path stdin = Files.write(dir.resolve("activation.json"), activation.jsonBytes());
      ProcessBuilder builder =
          new ProcessBuilder(sandbox.command(command, dir, workingDir))
              .redirectInput(stdin.toFile())
              .redirectOutput(stdout.toFile())
              .redirectError(stderr.toFile());
      if (workingDir != null) {
        builder.directory(workingDir);
      }
      builder.environment().clear();
      builder.environment().putAll(environment(passEnv, env, System.getenv()));
      builder.environment().put("ROTA_AGENT_ID", activation.agentId());
      builder.environment().put("ROTA_LEASE_ID", activation.leaseId());
      builder.environment().put("ROTA_ACTIVATION_KIND", activation.lease().kind().wireName());
      builder.environment().put("ROTA_ATTEMPT", String.valueOf(activation.lease().attempt()));
      builder.environment().put("ROTA_ACTIVATION_DIR", dir.toString());
      process = builder.start();
    } catch (IOException | RuntimeException e) {
      deleteQuietly(dir);
      result.complete(Outcome.retry("cannot start " + command.get(0) + ": " + e.getMessage()));
      return;
    }
    running.set(process);
    if (result.isCancelled()) {
      killTree(process);
    }
    process
        .onExit()
        .orTimeout(timeout.toMillis(), TimeUnit.MILLISECONDS)
        .whenCompleteAsync(
            (exited, timedOut) -> {
              try {
                if (timedOut != null) {
                  killTree(process);
                  result.complete(Outcome.retry("timed out after " + describe(timeout)));
                } else {
                  result.complete(outcome(process.exitValue(), readHead(stdout), readTail(stderr)));
                }
              } catch (Exception e) {
                result.complete(Outcome.retry("cannot read the output: " + e.getMessage()));
              } finally {
                deleteQuietly(dir);
              }
            },
            blocking);
  }

  /**
   * A process's environment: only the node's variables named in {@code pass-env}, then the
   * configured {@code env} over them (the {@code ROTA_*} activation variables are added after).
   * Nothing else of the node's environment (its API tokens, database password) reaches the process.
   */
  static Map<String, String> environment(
      List<String> passEnv, Map<String, String> env, Map<String, String> nodeEnv) {
    Map<String, String> out = new LinkedHashMap<>();
    for (String name : passEnv) {
      String value = nodeEnv.get(name);
      if (value != null) {
        out.put(name, value);
      }
    }
    out.putAll(env);
    return out;
  }

  private static Outcome outcome(int exitCode, String stdout, String stderr) {
    if (exitCode == 0) {
      return Outcome.completed(
          OutputJson.parse(stdout)
              .orElseGet(() -> JsonNodeFactory.instance.objectNode().put("stdout", stdout)));
    }
    String error = "exit " + exitCode + (stderr.isBlank() ? "" : ": " + stderr.strip());
    return OutputJson.requested(stdout, error).orElseGet(() -> Outcome.retry(error));
  }

  /**
   * Kills the process and all its descendants, listed before the root dies so that none is missed
   * as an orphan.
   */
  static void killTree(ProcessHandle process) {
    List<ProcessHandle> descendants = process.descendants().toList();
    process.destroyForcibly();
    descendants.forEach(ProcessHandle::destroyForcibly);
  }

  private static void killTree(Process process) {
    killTree(process.toHandle());
  }

  private String readHead(Path file) throws IOException {
    try (InputStream in = Files.newInputStream(file)) {
      return new String(
          in.readNBytes((int) Math.min(maxOutput, Integer.MAX_VALUE - 8)), StandardCharsets.UTF_8);
    }
  }

  private static String readTail(Path file) throws IOException {
    try (RandomAccessFile in = new RandomAccessFile(file.toFile(), "r")) {
      long length = in.length();
      int size = (int) Math.min(length, STDERR_TAIL);
      byte[] bytes = new byte[size];
      in.seek(length - size);
      in.readFully(bytes);
      return new String(bytes, StandardCharsets.UTF_8);
    }
  }

  private static void deleteQuietly(Path dir) {
    try (Stream<Path> files = Files.walk(dir)) {
      files.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
    } catch (IOException e) {
      log.warn("Cannot delete {}: {}", dir, e.getMessage());
    }
  }

  static String describe(Duration duration) {
    return duration.toMillis() % 1000 == 0
        ? duration.toSeconds() + "s"
        : duration.toMillis() + "ms";
  }
}
