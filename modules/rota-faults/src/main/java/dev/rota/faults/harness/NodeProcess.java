package dev.rota.faults.harness;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.OptionalInt;
import java.util.concurrent.TimeUnit;

/**
 * One Rota node as its own JVM, started from the runnable jar with {@code config/cluster-node.conf}
 * and {@code ROTA_*} environment variables, logging to a file of the run. Faults act on the
 * process: SIGKILL, SIGSTOP/SIGCONT, SIGTERM. A node may listen on an address other than loopback
 * (its own network namespace, entered through a launcher prefix such as {@code ip netns exec}).
 */
public final class NodeProcess {
  private final int index;
  private final String host;
  private final List<String> launcher;
  private final int httpPort;
  private final int managementPort;
  private final int clusterPort;
  private Path jar;
  private Path config;
  private final Path dir;
  private final Map<String, String> environment;
  private Process process;
  private int starts;

  NodeProcess(
      int index,
      int httpPort,
      int managementPort,
      int clusterPort,
      Path jar,
      Path config,
      Path dir,
      Map<String, String> environment) {
    this(
        index,
        "127.0.0.1",
        List.of(),
        httpPort,
        managementPort,
        clusterPort,
        jar,
        config,
        dir,
        environment);
  }

  NodeProcess(
      int index,
      String host,
      List<String> launcher,
      int httpPort,
      int managementPort,
      int clusterPort,
      Path jar,
      Path config,
      Path dir,
      Map<String, String> environment) {
    this.index = index;
    this.host = host;
    this.launcher = List.copyOf(launcher);
    this.httpPort = httpPort;
    this.managementPort = managementPort;
    this.clusterPort = clusterPort;
    this.jar = jar;
    this.config = config;
    this.dir = dir;
    this.environment = environment;
  }

  public int index() {
    return index;
  }

  /** The address its API, management and cluster ports listen on. */
  public String host() {
    return host;
  }

  public int httpPort() {
    return httpPort;
  }

  public int managementPort() {
    return managementPort;
  }

  public int clusterPort() {
    return clusterPort;
  }

  /**
   * The jar and configuration file its next {@link #start()} runs: a rolling upgrade starts a node
   * that left from the new jar.
   */
  public synchronized void runFrom(Path jar, Path config) {
    this.jar = jar;
    this.config = config;
  }

  /** The jar it was last started from (or is to start from). */
  public synchronized Path jar() {
    return jar;
  }

  /**
   * Starts the JVM (again, after it exited); its output goes to {@code node-<i>-<start>.log}, its
   * garbage collections to {@code gc-<i>-<start>.log}.
   */
  public synchronized void start() {
    starts++;
    try {
      Files.createDirectories(dir);
      Path log = dir.resolve("node-" + index + "-" + starts + ".log");
      List<String> command = new ArrayList<>(launcher);
      command.add(ProcessHandle.current().info().command().orElse("java"));
      command.add("-Xmx384m");
      command.add("-XX:+UseSerialGC");
      // Its collections, with their pauses and wall-clock times, next to its log: a pause is one
      // of the things that delay heartbeats on a loaded machine.
      command.add(
          "-Xlog:gc:file="
              + dir.toAbsolutePath().resolve("gc-" + index + "-" + starts + ".log")
              + ":time,uptime");
      command.add("-Dconfig.file=" + config);
      command.add("-jar");
      command.add(jar.toString());
      ProcessBuilder builder =
          new ProcessBuilder(command)
              .directory(dir.toFile())
              .redirectErrorStream(true)
              .redirectOutput(log.toFile());
      builder.environment().putAll(environment);
      builder.environment().put("ROTA_DATA_DIR", dir.resolve("data-" + index).toString());
      process = builder.start();
    } catch (IOException e) {
      throw new IllegalStateException("cannot start node " + index + " from " + jar + ": " + e, e);
    }
  }

  public synchronized boolean alive() {
    return process != null && process.isAlive();
  }

  public synchronized long pid() {
    return process.pid();
  }

  /** SIGKILL. */
  public void kill9() {
    signal("KILL");
  }

  /** SIGSTOP: the JVM freezes, sockets stay open. */
  public void freeze() {
    signal("STOP");
  }

  /** SIGCONT. */
  public void thaw() {
    signal("CONT");
  }

  /** SIGTERM: a graceful stop through CoordinatedShutdown. */
  public void terminate() {
    signal("TERM");
  }

  private void signal(String name) {
    long pid = pid();
    try {
      Process kill = new ProcessBuilder("kill", "-" + name, Long.toString(pid)).start();
      if (kill.waitFor() != 0) {
        throw new IllegalStateException("kill -" + name + " " + pid + " failed");
      }
    } catch (IOException e) {
      throw new IllegalStateException("cannot send SIG" + name + " to node " + index + ": " + e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted", e);
    }
  }

  /** The exit status once the process has ended within {@code timeout}, or empty. */
  public OptionalInt awaitExit(Duration timeout) {
    Process current;
    synchronized (this) {
      current = process;
    }
    try {
      if (current.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
        return OptionalInt.of(current.exitValue());
      }
      return OptionalInt.empty();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return OptionalInt.empty();
    }
  }

  /** Ends the process at once if it still runs (end of a run). */
  public synchronized void destroy() {
    if (process != null && process.isAlive()) {
      process.destroyForcibly();
      try {
        process.waitFor(10, TimeUnit.SECONDS);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }
  }

  @Override
  public String toString() {
    return "node " + index;
  }
}
