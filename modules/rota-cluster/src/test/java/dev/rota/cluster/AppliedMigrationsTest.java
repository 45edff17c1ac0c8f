package dev.rota.cluster;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * A migration that a database may already have applied never changes: Flyway keeps each applied
 * migration's checksum and refuses to start a node whose migration of the same version differs, so
 * even a comment edited in {@code V3} stops every existing installation. Each migration's digest is
 * pinned in {@code applied-migrations.txt}; a schema change is a new version, added to the list.
 */
class AppliedMigrationsTest {

  private static final Path MIGRATIONS = Path.of("src/main/resources/db/migration");

  @Test
  void everyMigrationIsAsPinned() throws IOException {
    Map<String, String> pinned = pinned();
    Map<String, String> actual = digests(MIGRATIONS);

    List<String> problems = problems(pinned, actual);

    assertTrue(problems.isEmpty(), String.join("\n", problems));
  }

  @Test
  void anEditedOrUnlistedMigrationIsNamed() {
    Map<String, String> pinned = Map.of("h2/V1__a.sql", "aa", "h2/V2__b.sql", "bb");
    Map<String, String> actual =
        Map.of("h2/V1__a.sql", "changed", "h2/V2__b.sql", "bb", "h2/V3__c.sql", "cc");

    List<String> problems = problems(pinned, actual);

    assertEquals(2, problems.size(), problems.toString());
    assertTrue(problems.get(0).contains("h2/V1__a.sql"), problems.get(0));
    assertTrue(problems.get(1).contains("h2/V3__c.sql"), problems.get(1));
  }

  static List<String> problems(Map<String, String> pinned, Map<String, String> actual) {
    List<String> problems = new ArrayList<>();
    new TreeMap<>(actual)
        .forEach(
            (name, digest) -> {
              String expected = pinned.get(name);
              if (expected == null) {
                problems.add(
                    name
                        + " is not in applied-migrations.txt: add '"
                        + name
                        + " "
                        + digest
                        + "' once the migration is final");
              } else if (!expected.equals(digest)) {
                problems.add(
                    name
                        + " changed after it may have been applied: revert it and put the change in"
                        + " a new version");
              }
            });
    pinned.keySet().stream()
        .filter(name -> !actual.containsKey(name))
        .sorted()
        .forEach(name -> problems.add(name + " is pinned but gone: an applied migration stays"));
    return problems;
  }

  private static Map<String, String> pinned() throws IOException {
    Map<String, String> pinned = new TreeMap<>();
    try (InputStream in =
        AppliedMigrationsTest.class.getResourceAsStream("applied-migrations.txt")) {
      for (String line : new String(in.readAllBytes(), StandardCharsets.UTF_8).split("\n")) {
        if (!line.isBlank()) {
          String[] parts = line.trim().split(" ");
          pinned.put(parts[0], parts[1]);
        }
      }
    }
    return pinned;
  }

  private static Map<String, String> digests(Path root) throws IOException {
    Map<String, String> digests = new TreeMap<>();
    try (Stream<Path> files = Files.walk(root)) {
      for (Path file : files.filter(p -> p.toString().endsWith(".sql")).toList()) {
        digests.put(root.relativize(file).toString(), sha256(Files.readAllBytes(file)));
      }
    }
    return digests;
  }

  private static String sha256(byte[] bytes) {
    try {
      return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(bytes));
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException(e);
    }
  }
}
