package dev.rota.faults.harness;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * The runnable jar of an earlier commit, with that commit's {@code config/} directory, as a rolling
 * upgrade starts its nodes from. Built once from a detached worktree of the commit ({@code mvn
 * package -pl modules/rota-server -am}, tests skipped) and kept under {@code <cache>/<full sha>/},
 * so a second run finds it there and builds nothing.
 *
 * @param commit the full commit id
 * @param jar its {@code rota-server.jar}
 * @param config its {@code config/cluster-node.conf} (next to the files it includes)
 */
public record OldJar(String commit, Path jar, Path config) {
  private static final String SERVER_MODULE = "modules/rota-server";
  private static final long BUILD_MINUTES = 30;

  /**
   * The jar of {@code commit} from the cache, built into it first if absent.
   *
   * @param repo a checkout of Rota's repository that has the commit
   * @param mvn the Maven launcher to build with
   * @param cache where built jars are kept, one directory per commit
   * @throws IllegalStateException naming what is missing when git, the commit or the build fails
   */
  public static OldJar of(String commit, Path repo, Path mvn, Path cache) {
    String full = fullCommit(commit, repo);
    Path kept = cache.resolve(full);
    OldJar old =
        new OldJar(full, kept.resolve("rota-server.jar"), kept.resolve("config/cluster-node.conf"));
    if (Files.isRegularFile(old.jar()) && Files.isRegularFile(old.config())) {
      System.out.printf("[upgrade] the jar of %s is cached in %s%n", full, kept);
      return old;
    }
    build(full, repo, mvn, cache, kept);
    return old;
  }

  private static String fullCommit(String commit, Path repo) {
    if (commit == null || commit.isBlank()) {
      throw new IllegalStateException(
          "no commit to upgrade from: set -Drota.upgrade.from=<commit> (the pom's default is"
              + " a386773)");
    }
    Result found =
        run(repo, List.of("git", "rev-parse", "--verify", "--quiet", commit + "^{commit}"), 1);
    if (found.status() != 0) {
      throw new IllegalStateException(
          "commit "
              + commit
              + " is not in the repository at "
              + repo
              + " (a shallow clone? fetch it first): git rev-parse said "
              + found.output().strip());
    }
    return found.output().strip();
  }

  private static void build(String commit, Path repo, Path mvn, Path cache, Path kept) {
    Path worktree = cache.resolve(commit + ".worktree");
    Path staged = cache.resolve(commit + ".staged");
    System.out.printf("[upgrade] building the jar of %s in %s%n", commit, worktree);
    try {
      Files.createDirectories(cache);
      deleteTree(staged);
      if (Files.exists(worktree)) {
        run(repo, List.of("git", "worktree", "remove", "--force", worktree.toString()), 1);
        deleteTree(worktree);
      }
      check(
          run(repo, List.of("git", "worktree", "add", "--detach", worktree.toString(), commit), 2),
          "git worktree add of " + commit);
      try {
        check(
            run(
                worktree,
                List.of(
                    mvn.toString(),
                    "-B",
                    "-o",
                    "-q",
                    "package",
                    "-DskipTests",
                    "-Dspotless.check.skip=true",
                    "-pl",
                    SERVER_MODULE,
                    "-am"),
                BUILD_MINUTES),
            "the build of " + SERVER_MODULE + " at " + commit);
        Files.createDirectories(staged.resolve("config"));
        Files.copy(
            worktree.resolve(SERVER_MODULE + "/target/rota-server.jar"),
            staged.resolve("rota-server.jar"));
        try (Stream<Path> files = Files.list(worktree.resolve("config"))) {
          for (Path file : files.toList()) {
            Files.copy(file, staged.resolve("config").resolve(file.getFileName()));
          }
        }
        deleteTree(kept);
        // Whole or not at all: a build cut short leaves no cache entry a later run would trust.
        Files.move(staged, kept, StandardCopyOption.ATOMIC_MOVE);
      } finally {
        run(repo, List.of("git", "worktree", "remove", "--force", worktree.toString()), 2);
      }
    } catch (IOException e) {
      throw new UncheckedIOException("cannot keep the jar of " + commit + " in " + cache, e);
    }
    System.out.printf("[upgrade] the jar of %s is in %s%n", commit, kept);
  }

  private record Result(int status, String output) {}

  private static void check(Result result, String what) {
    if (result.status() != 0) {
      String output = result.output();
      throw new IllegalStateException(
          what
              + " failed with status "
              + result.status()
              + ":\n"
              + output.substring(Math.max(0, output.length() - 4000)));
    }
  }

  private static Result run(Path dir, List<String> command, long minutes) {
    Path log = null;
    try {
      log = Files.createTempFile("rota-old-jar", ".log");
      Process process =
          new ProcessBuilder(new ArrayList<>(command))
              .directory(dir.toFile())
              .redirectErrorStream(true)
              .redirectOutput(log.toFile())
              .start();
      process.getOutputStream().close();
      if (!process.waitFor(minutes, TimeUnit.MINUTES)) {
        process.destroyForcibly();
        return new Result(-1, "did not end within " + minutes + " min");
      }
      return new Result(process.exitValue(), Files.readString(log, StandardCharsets.UTF_8));
    } catch (IOException e) {
      throw new IllegalStateException(
          "cannot run " + command.get(0) + " (is it installed and on the PATH?): " + e, e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted while running " + command, e);
    } finally {
      if (log != null) {
        log.toFile().delete();
      }
    }
  }

  private static void deleteTree(Path root) throws IOException {
    if (!Files.exists(root)) {
      return;
    }
    try (Stream<Path> paths = Files.walk(root)) {
      for (Path path : paths.sorted(java.util.Comparator.reverseOrder()).toList()) {
        Files.delete(path);
      }
    }
  }
}
