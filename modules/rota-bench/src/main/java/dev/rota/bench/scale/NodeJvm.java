package dev.rota.bench.scale;

import dev.rota.bench.system.BenchDatabase;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.HttpURLConnection;
import java.net.ServerSocket;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * One Rota node as its own JVM ({@code dev.rota.server.Main} from the bench's own classpath) on a
 * trial's database, so that its heap holds the node and nothing of the bench. Settings are passed
 * as system properties, which override the node's {@code application.conf}; output goes to a log
 * file the bench reads to see the coordinators load.
 */
final class NodeJvm implements AutoCloseable {

  /** The coordinator's line once its partition is loaded (see {@code Coordinator#onLoaded}). */
  private static final Pattern COORDINATOR_READY =
      Pattern.compile("Coordinator (\\d+) ready with (\\d+) agents");

  private static final Pattern HEAP_USED = Pattern.compile("used (\\d+)K");

  private final Map<String, String> properties;
  private final String heap;
  private final Path logDir;
  private final Path dataDir;
  private final int httpPort;
  private final int managementPort;
  private Process process;
  private Path log;
  private long startedNanos;
  private int starts;

  /**
   * @param database where the node keeps journal and read model
   * @param heap the node's {@code -Xmx}
   * @param overrides further node settings ({@code --system-option rota.node.<key>=<value>})
   * @param logDir where {@code scale-node-<n>.log} files go
   */
  NodeJvm(BenchDatabase database, String heap, Map<String, String> overrides, Path logDir)
      throws IOException {
    this.heap = heap;
    this.logDir = logDir;
    this.httpPort = freePort();
    this.managementPort = freePort();
    this.dataDir = Files.createTempDirectory("rota-bench-scale-");
    Map<String, String> p = new LinkedHashMap<>();
    p.put("rota.data-dir", dataDir.toString());
    p.put("rota.db.dialect", "postgres");
    p.put("rota.db.driver", "org.postgresql.Driver");
    p.put("rota.db.url", database.jdbcUrl());
    p.put("rota.db.user", database.user());
    p.put("rota.db.password", database.password());
    p.put("pekko-persistence-jdbc.shared-databases.slick.profile", "slick.jdbc.PostgresProfile$");
    p.put("rota.http.interface", "127.0.0.1");
    p.put("rota.http.port", Integer.toString(httpPort));
    p.put("rota.cluster.host", "127.0.0.1");
    p.put("rota.cluster.port", Integer.toString(freePort()));
    p.put("rota.management.port", Integer.toString(managementPort));
    p.putAll(overrides);
    this.properties = p;
  }

  URI apiBase() {
    return URI.create("http://127.0.0.1:" + httpPort + "/");
  }

  /**
   * Starts the JVM; the clock of {@link #awaitReady} and {@link #awaitCoordinators} starts here.
   */
  synchronized void start() throws IOException {
    starts++;
    Files.createDirectories(logDir);
    log = logDir.resolve("scale-node-" + starts + ".log");
    List<String> command = new ArrayList<>();
    command.add(ProcessHandle.current().info().command().orElse("java"));
    command.add("-Xmx" + heap);
    command.add("-Xms" + heap);
    // e.g. -Drota.bench.scale.node-jvm-options="-XX:StartFlightRecording=filename=node.jfr"
    String extra = System.getProperty("rota.bench.scale.node-jvm-options", "").trim();
    if (!extra.isEmpty()) {
      command.addAll(List.of(extra.split("\\s+")));
    }
    properties.forEach((k, v) -> command.add("-D" + k + "=" + v));
    // The server's own logging, also where a test's logback-test.xml is on the classpath: the
    // bench reads the coordinators' INFO lines.
    command.add("-Dlogback.configurationFile=logback.xml");
    command.add("-cp");
    // e.g. -Drota.bench.scale.node-classpath=/elsewhere/rota-server.jar: another build's node
    // under the same workload (a before/after comparison on one machine).
    command.add(
        System.getProperty(
            "rota.bench.scale.node-classpath", System.getProperty("java.class.path")));
    command.add("dev.rota.server.Main");
    ProcessBuilder builder =
        new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(log.toFile());
    // One line per request would be a million lines while registering; the bench measures the API.
    builder.environment().put("ROTA_ACCESS_LOG_LEVEL", "WARN");
    startedNanos = System.nanoTime();
    process = builder.start();
  }

  long pid() {
    return process.pid();
  }

  /**
   * CPU time the node's process has used so far: on a shared machine a better measure of cost than
   * wall time.
   */
  Duration cpu() {
    return process.info().totalCpuDuration().orElse(Duration.ZERO);
  }

  /** Seconds from {@link #start} until {@code /ready} answers 200. */
  double awaitReady(Duration timeout) throws Exception {
    long deadline = startedNanos + timeout.toNanos();
    URI ready = URI.create("http://127.0.0.1:" + managementPort + "/ready");
    while (System.nanoTime() < deadline) {
      requireAlive();
      if (status(ready) == 200) {
        return (System.nanoTime() - startedNanos) / 1e9;
      }
      Thread.sleep(20);
    }
    throw new IllegalStateException("node not ready within " + timeout + "; see " + log);
  }

  /**
   * Seconds from {@link #start} until every partition's coordinator logged that it loaded, and the
   * agents they loaded together.
   */
  CoordinatorsLoaded awaitCoordinators(int partitions, Duration timeout) throws Exception {
    long deadline = startedNanos + timeout.toNanos();
    while (System.nanoTime() < deadline) {
      Map<Integer, Long> loaded = new LinkedHashMap<>();
      Matcher m = COORDINATOR_READY.matcher(Files.readString(log, StandardCharsets.UTF_8));
      while (m.find()) {
        loaded.putIfAbsent(Integer.parseInt(m.group(1)), Long.parseLong(m.group(2)));
      }
      if (loaded.size() >= partitions) {
        long agents = loaded.values().stream().mapToLong(Long::longValue).sum();
        return new CoordinatorsLoaded((System.nanoTime() - startedNanos) / 1e9, agents);
      }
      requireAlive();
      Thread.sleep(20);
    }
    throw new IllegalStateException(
        "coordinators not all loaded within " + timeout + "; see " + log);
  }

  record CoordinatorsLoaded(double seconds, long agents) {}

  /** Live heap in bytes after a full GC ({@code jcmd GC.run}, then {@code GC.heap_info}). */
  long liveHeapAfterFullGc() throws Exception {
    jcmd("GC.run");
    // G1 runs System.gc() as a full, stop-the-world collection; a second one catches what the
    // first left for finalization and reference processing.
    jcmd("GC.run");
    String info = jcmd("GC.heap_info");
    Matcher m = HEAP_USED.matcher(info);
    if (!m.find()) {
      throw new IllegalStateException("no heap usage in jcmd GC.heap_info: " + info);
    }
    return Long.parseLong(m.group(1)) * 1024;
  }

  private String jcmd(String what) throws Exception {
    Path jcmd =
        Path.of(System.getProperty("java.home"), "bin", "jcmd").toFile().canExecute()
            ? Path.of(System.getProperty("java.home"), "bin", "jcmd")
            : Path.of("jcmd");
    Process p =
        new ProcessBuilder(jcmd.toString(), Long.toString(pid()), what)
            .redirectErrorStream(true)
            .start();
    String output = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    if (!p.waitFor(120, TimeUnit.SECONDS) || p.exitValue() != 0) {
      throw new IllegalStateException("jcmd " + what + " failed: " + output);
    }
    return output;
  }

  /** SIGTERM: the node leaves through CoordinatedShutdown; waits for the JVM to exit. */
  synchronized void stop(Duration timeout) throws InterruptedException {
    if (process == null || !process.isAlive()) {
      return;
    }
    process.destroy();
    if (!process.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
      process.destroyForcibly();
      process.waitFor(10, TimeUnit.SECONDS);
    }
  }

  Path log() {
    return log;
  }

  private void requireAlive() {
    if (!process.isAlive()) {
      throw new IllegalStateException(
          "node exited with status " + process.exitValue() + "; see " + log);
    }
  }

  private static int status(URI uri) {
    try {
      HttpURLConnection c = (HttpURLConnection) uri.toURL().openConnection();
      c.setConnectTimeout(500);
      c.setReadTimeout(2000);
      try {
        int status = c.getResponseCode();
        try (InputStream body = status < 400 ? c.getInputStream() : c.getErrorStream()) {
          if (body != null) {
            body.readAllBytes();
          }
        }
        return status;
      } finally {
        c.disconnect();
      }
    } catch (IOException e) {
      return -1;
    }
  }

  private static int freePort() {
    try (ServerSocket s = new ServerSocket(0)) {
      return s.getLocalPort();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  @Override
  public void close() throws InterruptedException {
    try {
      stop(Duration.ofSeconds(60));
    } finally {
      try (var paths = Files.walk(dataDir)) {
        paths.sorted(java.util.Comparator.reverseOrder()).forEach(f -> f.toFile().delete());
      } catch (IOException ignored) {
        // a temporary directory; nothing of value is lost
      }
    }
  }
}
