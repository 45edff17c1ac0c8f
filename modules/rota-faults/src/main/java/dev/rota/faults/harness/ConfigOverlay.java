package dev.rota.faults.harness;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * A node configuration file written for one run: it includes the suite's file and sets a few keys
 * on top (journal retention knobs, runner pools), as a deployment's overlay in {@code config/}
 * does.
 */
public final class ConfigOverlay {
  private ConfigOverlay() {}

  /** Writes {@code dir/name} including {@code base} and then {@code hocon}; its absolute path. */
  public static Path write(Path base, String hocon, Path dir, String name) {
    try {
      Files.createDirectories(dir);
      Path file = dir.resolve(name);
      Files.writeString(
          file, "include file(\"" + base.toAbsolutePath() + "\")\n" + hocon.strip() + "\n");
      return file.toAbsolutePath();
    } catch (IOException e) {
      throw new UncheckedIOException(
          "cannot write the node configuration " + name + " in " + dir, e);
    }
  }
}
