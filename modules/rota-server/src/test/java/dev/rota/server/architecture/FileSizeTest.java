package dev.rota.server.architecture;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * Rooms of one purpose: at most three main source files over 400 lines, each named with its reason
 * in docs/architecture.md ("Files over 400 lines").
 */
class FileSizeTest {

  static final int LIMIT = 400;
  static final int ALLOWED = 3;
  private static final Path ROOT = Path.of("../..");

  @Test
  void atMostThreeMainFilesAreOverFourHundredLinesAndTheArchitectureDocNamesEach()
      throws IOException {
    String doc = Files.readString(ROOT.resolve("docs/architecture.md"));

    List<String> problems = problems(largeFiles(ROOT.resolve("modules"), LIMIT), doc);

    assertTrue(problems.isEmpty(), String.join("\n", problems));
  }

  @Test
  void theCheckFailsOnTooManyFilesAndOnAFileTheDocDoesNotName() throws IOException {
    List<Path> large = largeFiles(ROOT.resolve("modules"), 100);

    List<String> problems = problems(large, "");

    assertTrue(large.size() > ALLOWED, "fixture: more than three main files over 100 lines");
    assertEquals(large.size() + 1, problems.size(), String.join("\n", problems));
  }

  /** Main Java files of every module with more than {@code limit} lines. */
  static List<Path> largeFiles(Path modules, int limit) throws IOException {
    try (Stream<Path> files = Files.walk(modules)) {
      return files
          .filter(p -> p.toString().endsWith(".java"))
          .filter(p -> p.toString().contains("/src/main/java/"))
          .filter(p -> lines(p) > limit)
          .sorted()
          .toList();
    }
  }

  static List<String> problems(List<Path> large, String doc) {
    List<String> problems = new ArrayList<>();
    if (large.size() > ALLOWED) {
      problems.add(large.size() + " main files over the limit (at most " + ALLOWED + "): " + large);
    }
    for (Path file : large) {
      String name = file.getFileName().toString();
      if (!doc.contains("/" + name + "`")) {
        problems.add(file + " (" + lines(file) + " lines) is not named in docs/architecture.md");
      }
    }
    return problems;
  }

  private static long lines(Path file) {
    try (Stream<String> lines = Files.lines(file)) {
      return lines.count();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
