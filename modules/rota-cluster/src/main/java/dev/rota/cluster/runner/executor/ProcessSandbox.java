package dev.rota.cluster.runner.executor;

import com.typesafe.config.Config;
import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.concurrent.TimeUnit;

/**
 * Where and how an agent process of the {@code process} executor runs (decision 113). Every
 * activation gets a directory of its own, mode 0700, under a root only the node's user may enter
 * ({@code activations-dir}). With {@code sandbox = bwrap} (the default) the process runs under
 * bubblewrap:
 *
 * <ul>
 *   <li>new PID, IPC, UTS, cgroup, user and mount namespaces, so {@code /proc} shows only the
 *       sandbox's own processes: {@code /proc/$PPID} is bubblewrap's, with the clean environment
 *       the executor gave it, never the node's;
 *   <li>the file system read-only, with a private {@code /tmp}, a fresh {@code /dev} and {@code
 *       /proc}; the activations root hidden under an empty tmpfs and only the activation's own
 *       directory bound back, writable, with the operator's {@code sandbox-writable-paths};
 *   <li>the node's secret files hidden: the token file ({@code rota.http.tokens-file}), the
 *       cluster's TLS stores ({@code rota.cluster.tls.key-store}, {@code trust-store}) and {@code
 *       sandbox-hidden-paths} (directories become empty, files unreadable);
 *   <li>no capabilities, its own session (no terminal injection); killed with its whole tree when
 *       the activation times out or is given up.
 * </ul>
 *
 * <p>A node configured for bwrap that cannot run it stops at start ({@link #check}), saying so:
 * agent code never runs unconfined by accident. {@code sandbox = none} runs processes as the node's
 * user with only the clean environment and the private directory.
 */
final class ProcessSandbox {
  private static final Set<PosixFilePermission> OWNER_ONLY =
      PosixFilePermissions.fromString("rwx------");

  private final String pool;
  private final boolean bwrap;
  private final String bwrapPath;
  private final boolean network;
  private final List<String> hiddenPaths;
  private final List<Path> writablePaths;
  private final Path root;

  private ProcessSandbox(
      String pool,
      boolean bwrap,
      String bwrapPath,
      boolean network,
      List<String> hiddenPaths,
      List<Path> writablePaths,
      Path root) {
    this.pool = pool;
    this.bwrap = bwrap;
    this.bwrapPath = bwrapPath;
    this.network = network;
    this.hiddenPaths = List.copyOf(hiddenPaths);
    this.writablePaths = List.copyOf(writablePaths);
    this.root = root;
  }

  /**
   * The sandbox of a pool: {@code settings} are its executor settings, {@code node} the node's
   * whole config (for the secret files it names).
   */
  static ProcessSandbox from(String pool, Config settings, Config node) {
    String kind =
        settings.hasPath("sandbox")
            ? settings.getString("sandbox").strip().toLowerCase(Locale.ROOT)
            : "bwrap";
    if (!kind.equals("bwrap") && !kind.equals("none")) {
      throw new IllegalArgumentException(
          "pool "
              + pool
              + ": rota.runners.process.sandbox must be bwrap or none, not '"
              + kind
              + "'");
    }
    Set<String> hidden = new LinkedHashSet<>();
    for (String key :
        List.of(
            "rota.http.tokens-file",
            "rota.cluster.tls.key-store",
            "rota.cluster.tls.trust-store",
            "pekko.remote.artery.ssl.config-ssl-engine.key-store",
            "pekko.remote.artery.ssl.config-ssl-engine.trust-store")) {
      if (node.hasPath(key) && !node.getString(key).isBlank()) {
        hidden.add(node.getString(key));
      }
    }
    if (settings.hasPath("sandbox-hidden-paths")) {
      hidden.addAll(settings.getStringList("sandbox-hidden-paths"));
    }
    List<Path> writable = new ArrayList<>();
    if (settings.hasPath("sandbox-writable-paths")) {
      for (String path : settings.getStringList("sandbox-writable-paths")) {
        writable.add(Path.of(path).toAbsolutePath().normalize());
      }
    }
    String dir = settings.hasPath("activations-dir") ? settings.getString("activations-dir") : "";
    Path root =
        dir.isBlank()
            ? Path.of(System.getProperty("java.io.tmpdir"), "rota-activations")
            : Path.of(dir);
    return new ProcessSandbox(
        pool,
        kind.equals("bwrap"),
        settings.hasPath("bwrap-path") ? settings.getString("bwrap-path") : "bwrap",
        !settings.hasPath("sandbox-network") || settings.getBoolean("sandbox-network"),
        List.copyOf(hidden),
        writable,
        root.toAbsolutePath().normalize());
  }

  boolean isBwrap() {
    return bwrap;
  }

  /**
   * Makes the activations root (0700) and, with bwrap, runs {@code true} in the sandbox once.
   *
   * @throws IllegalArgumentException saying what to install or change when it cannot run
   */
  void check() {
    Path probe;
    try {
      for (Path path : writablePaths) {
        if (!Files.exists(path)) {
          Files.createDirectories(path);
        }
      }
      probe = newActivationDir();
    } catch (IOException e) {
      throw new IllegalArgumentException(
          "pool " + pool + ": cannot create the activations directory or a writable path: " + e, e);
    }
    try {
      if (bwrap) {
        probe(probe);
      }
    } finally {
      probe.toFile().delete();
    }
  }

  private void probe(Path dir) {
    String advice =
        "; install bubblewrap (Debian: apt-get install bubblewrap) and allow user namespaces, or"
            + " set rota.runners.process.sandbox = none to run agent processes unconfined"
            + " (docs/security.md)";
    Process process;
    try {
      process =
          new ProcessBuilder(command(List.of("true"), dir, null))
              .redirectInput(ProcessBuilder.Redirect.from(new File("/dev/null")))
              .redirectOutput(ProcessBuilder.Redirect.DISCARD)
              .start();
    } catch (IOException e) {
      throw new IllegalArgumentException(
          "pool "
              + pool
              + ": rota.runners.process.sandbox = bwrap, but "
              + bwrapPath
              + " cannot be run ("
              + e.getMessage()
              + ")"
              + advice,
          e);
    }
    try {
      if (!process.waitFor(30, TimeUnit.SECONDS)) {
        process.destroyForcibly();
        throw new IllegalArgumentException(
            "pool " + pool + ": " + bwrapPath + " did not run a test process within 30 s" + advice);
      }
      if (process.exitValue() != 0) {
        String error =
            new String(process.getErrorStream().readNBytes(500), StandardCharsets.UTF_8).strip();
        throw new IllegalArgumentException(
            "pool "
                + pool
                + ": "
                + bwrapPath
                + " cannot run a sandboxed process (exit "
                + process.exitValue()
                + (error.isEmpty() ? "" : ": " + error)
                + ")"
                + advice);
      }
    } catch (IOException e) {
      throw new IllegalArgumentException("pool " + pool + ": " + e.getMessage() + advice, e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }

  /** A new directory, mode 0700, for one activation. */
  Path newActivationDir() throws IOException {
    if (!Files.isDirectory(root)) {
      Files.createDirectories(root, PosixFilePermissions.asFileAttribute(OWNER_ONLY));
    }
    if (!Files.getPosixFilePermissions(root).equals(OWNER_ONLY)) {
      Files.setPosixFilePermissions(root, OWNER_ONLY);
    }
    return Files.createTempDirectory(root, "a-", PosixFilePermissions.asFileAttribute(OWNER_ONLY));
  }

  /**
   * The command line that runs {@code command} for the activation whose directory is {@code dir},
   * in {@code workingDir} (null: the node's).
   */
  List<String> command(List<String> command, Path dir, File workingDir) {
    if (!bwrap) {
      return command;
    }
    List<String> line = new ArrayList<>();
    line.add(bwrapPath);
    // Not --die-with-parent: its signal follows the thread that started the process, and the
    // blocking dispatcher retires idle threads; killTree ends the sandbox with the activation.
    line.addAll(List.of("--new-session", "--unshare-all"));
    if (network) {
      line.add("--share-net");
    }
    line.addAll(List.of("--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc"));
    line.addAll(List.of("--tmpfs", "/tmp"));
    String cwd =
        workingDir == null ? Path.of("").toAbsolutePath().toString() : workingDir.getAbsolutePath();
    List<Path> shown = new ArrayList<>(writablePaths);
    // Visible even when it lies under /tmp (the node's own directory may: --chdir needs it);
    // writable below if listed.
    line.addAll(List.of("--ro-bind", cwd, cwd));
    shown.add(Path.of(cwd));
    for (Path path : writablePaths) {
      line.addAll(List.of("--bind", path.toString(), path.toString()));
    }
    // Hidden after the binds above, so that none of them shows a secret again.
    line.addAll(List.of("--tmpfs", root.toString()));
    for (String hidden : hiddenPaths) {
      hide(line, Path.of(hidden), shown);
    }
    line.addAll(List.of("--bind", dir.toString(), dir.toString()));
    line.addAll(List.of("--chdir", cwd, "--"));
    line.addAll(command);
    return line;
  }

  /**
   * A directory becomes an empty tmpfs, a file unreadable; what does not exist needs nothing, nor
   * what lies in the sandbox's empty {@code /tmp} or activations root unless a bind shows it again.
   */
  private void hide(List<String> line, Path path, List<Path> shown) {
    Path real;
    try {
      real = path.toAbsolutePath().toRealPath();
    } catch (IOException e) {
      return;
    }
    boolean coveredByTmpfs = real.startsWith("/tmp") || real.startsWith(root);
    if (coveredByTmpfs && shown.stream().noneMatch(real::startsWith)) {
      return;
    }
    if (Files.isDirectory(real)) {
      line.addAll(List.of("--tmpfs", real.toString()));
    } else {
      line.addAll(List.of("--ro-bind", "/dev/null", real.toString()));
    }
  }
}
