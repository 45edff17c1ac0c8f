package dev.rota.bench.graphile;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.rota.bench.system.Availability;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * Installs graphile-worker with npm into a folder of its own (never committed: under {@code
 * target/} or the results directory) and writes the driver script next to it. Installs once per
 * folder and version; a missing {@code node}/{@code npm} or a failed install becomes an {@link
 * Availability} with the reason, never an exception.
 */
public final class GraphileInstall {

  /**
   * The newest graphile-worker whose {@code engines} accepts Node 20: 0.18.0 requires Node
   * &gt;=22.18, 0.17.3 declares &gt;=14.
   */
  public static final String DEFAULT_VERSION = "0.17.3";

  /** The Node.js executable when none is given: {@code node} from the PATH. */
  public static final String DEFAULT_NODE = "node";

  static final String SCRIPT = "bench-worker.cjs";
  private static final long INSTALL_TIMEOUT_SECONDS = 300;

  private final Path folder;
  private final String version;
  private final String node;
  private String nodeVersion = "";
  private Availability availability;

  /**
   * @param node the Node.js executable: {@code node} from the PATH, or a path; npm is taken from
   *     the PATH either way
   */
  public GraphileInstall(Path folder, String version, String node) {
    this.folder = folder;
    this.version = version;
    this.node = node;
  }

  /** The Node.js executable the worker runs with. */
  public String node() {
    return node;
  }

  public Path folder() {
    return folder;
  }

  public String version() {
    return version;
  }

  public String nodeVersion() {
    return nodeVersion;
  }

  /** Checks node and npm, installs if needed; the result is remembered. */
  public synchronized Availability ensure() {
    if (availability == null) {
      availability = check();
    }
    return availability;
  }

  private Availability check() {
    try {
      ProcessResult version = run(List.of(node, "--version"), 30);
      if (version.exit != 0) {
        return Availability.unavailable("`" + node + " --version` failed: " + version.tail());
      }
      nodeVersion = version.output.trim();
    } catch (IOException e) {
      return Availability.unavailable(
          node.equals(DEFAULT_NODE)
              ? "Node.js is not installed (`node` not found on PATH)"
              : "Node.js not found at " + node);
    }
    try {
      ProcessResult npm = run(List.of("npm", "--version"), 60);
      if (npm.exit != 0) {
        return Availability.unavailable("`npm --version` failed: " + npm.tail());
      }
    } catch (IOException e) {
      return Availability.unavailable("npm is not installed (`npm` not found on PATH)");
    }
    try {
      Files.createDirectories(folder);
      writeScript();
      if (!version.equals(installedVersion())) {
        Files.writeString(
            folder.resolve("package.json"),
            "{\"name\":\"rota-bench-graphile\",\"private\":true,\"version\":\"0.0.0\"}\n");
        ProcessResult install =
            run(
                List.of(
                    "npm",
                    "install",
                    "--no-audit",
                    "--no-fund",
                    "--save-exact",
                    "--loglevel=error",
                    "graphile-worker@" + version),
                INSTALL_TIMEOUT_SECONDS);
        Files.writeString(folder.resolve("npm-install.log"), install.output);
        if (install.exit != 0 || !version.equals(installedVersion())) {
          return Availability.unavailable(
              "`npm install graphile-worker@" + version + "` failed: " + install.tail());
        }
      }
      return Availability.ok();
    } catch (IOException e) {
      return Availability.unavailable("could not install graphile-worker: " + e.getMessage());
    }
  }

  private String installedVersion() throws IOException {
    Path manifest = folder.resolve("node_modules/graphile-worker/package.json");
    if (!Files.exists(manifest)) {
      return null;
    }
    JsonNode json = new ObjectMapper().readTree(manifest.toFile());
    return json.path("version").asText(null);
  }

  private void writeScript() throws IOException {
    try (InputStream in = GraphileInstall.class.getResourceAsStream(SCRIPT)) {
      if (in == null) {
        throw new IOException(SCRIPT + " missing from the classpath");
      }
      Files.copy(in, folder.resolve(SCRIPT), StandardCopyOption.REPLACE_EXISTING);
    }
  }

  private ProcessResult run(List<String> command, long timeoutSeconds) throws IOException {
    Path workDir = Files.isDirectory(folder) ? folder : Path.of(".");
    // Output goes to a file, so a hung npm (no network) still ends at the timeout.
    Path output = Files.createTempFile("rota-bench-npm", ".log");
    try {
      Process process =
          new ProcessBuilder(command)
              .directory(workDir.toFile())
              .redirectErrorStream(true)
              .redirectOutput(output.toFile())
              .start();
      process.getOutputStream().close();
      boolean finished;
      try {
        finished = process.waitFor(timeoutSeconds, TimeUnit.SECONDS);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        finished = false;
      }
      if (!finished) {
        process.destroyForcibly();
        return new ProcessResult(-1, read(output) + "\n(gave up after " + timeoutSeconds + " s)");
      }
      return new ProcessResult(process.exitValue(), read(output));
    } finally {
      Files.deleteIfExists(output);
    }
  }

  private static String read(Path file) throws IOException {
    return Files.readString(file, StandardCharsets.UTF_8);
  }

  private record ProcessResult(int exit, String output) {
    String tail() {
      List<String> lines = new ArrayList<>(output.lines().toList());
      List<String> last = lines.subList(Math.max(0, lines.size() - 5), lines.size());
      return last.isEmpty() ? "(no output, exit " + exit + ")" : String.join(" | ", last);
    }
  }
}
