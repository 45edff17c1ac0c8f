package dev.rota.faults.harness;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;

/** The nodes' configuration file for a run whose default tenant is capped. */
final class CappedConfig {
  private CappedConfig() {}

  /**
   * The suite's configuration when {@code cap} is null, else a file in {@code dir} that includes it
   * and caps the default tenant's leases at once at {@code cap}.
   */
  static Path of(Path config, Integer cap, Path dir) {
    if (cap == null) {
      return config;
    }
    try {
      Files.createDirectories(dir);
      Path capped = dir.resolve("capped-node.conf");
      Files.writeString(
          capped,
          "include file(\""
              + config.toAbsolutePath()
              + "\")\nrota.tenants { default { max-concurrent = "
              + cap
              + " } }\n");
      return capped.toAbsolutePath();
    } catch (IOException e) {
      throw new UncheckedIOException("cannot write the capped node configuration in " + dir, e);
    }
  }
}
