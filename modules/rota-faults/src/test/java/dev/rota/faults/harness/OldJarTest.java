package dev.rota.faults.harness;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@link OldJar} on a repository of its own (one commit, made here with git): a commit it lacks
 * fails naming it, and a jar already cached for a commit is used without building (the Maven
 * launcher given does not exist, so any build would fail).
 */
class OldJarTest {
  private static final Path NO_MAVEN = Path.of("/nonexistent/mvn");

  @TempDir Path dir;
  private Path repo;
  private Path cache;

  @BeforeEach
  void repository() throws IOException, InterruptedException {
    repo = Files.createDirectories(dir.resolve("repo"));
    cache = dir.resolve("cache");
    Files.writeString(repo.resolve("README.md"), "old\n");
    git("init", "-q");
    git("add", "README.md");
    git("-c", "user.name=t", "-c", "user.email=t@t", "commit", "-q", "-m", "old");
  }

  @Test
  void refusesACommitTheRepositoryLacksNamingIt() {
    IllegalStateException e =
        assertThrows(
            IllegalStateException.class, () -> OldJar.of("0123abc", repo, NO_MAVEN, cache));
    assertTrue(e.getMessage().contains("commit 0123abc is not in the repository"), e.getMessage());
    assertTrue(Files.notExists(cache), "nothing was built nor cached");
  }

  @Test
  void usesTheCachedJarOfACommitWithoutBuilding() throws IOException, InterruptedException {
    String head = git("rev-parse", "HEAD").strip();
    Path kept = Files.createDirectories(cache.resolve(head).resolve("config"));
    Files.writeString(kept.resolve("cluster-node.conf"), "");
    Files.writeString(cache.resolve(head).resolve("rota-server.jar"), "");

    OldJar old = OldJar.of(head.substring(0, 7), repo, NO_MAVEN, cache);

    assertEquals(head, old.commit());
    assertEquals(cache.resolve(head).resolve("rota-server.jar"), old.jar());
    assertEquals(kept.resolve("cluster-node.conf"), old.config());
  }

  @Test
  void failsSayingSoWhenTheBuildCannotRun() throws IOException, InterruptedException {
    String head = git("rev-parse", "HEAD").strip();
    IllegalStateException e =
        assertThrows(IllegalStateException.class, () -> OldJar.of(head, repo, NO_MAVEN, cache));
    assertTrue(e.getMessage().contains(NO_MAVEN.toString()), e.getMessage());
    assertTrue(Files.notExists(cache.resolve(head)), "no cache entry for a build that failed");
  }

  private String git(String... args) throws IOException, InterruptedException {
    List<String> command = new java.util.ArrayList<>(List.of("git"));
    command.addAll(List.of(args));
    Process process =
        new ProcessBuilder(command).directory(repo.toFile()).redirectErrorStream(true).start();
    String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertEquals(0, process.waitFor(), String.join(" ", command) + ": " + output);
    return output;
  }
}
