package dev.rota.bench.system;

import java.io.PrintStream;
import java.nio.file.Path;
import java.util.Map;

/**
 * What a system may use besides its database: a work directory it may cache installs in, the
 * results directory for its logs, where to print notices, and system-specific options given on the
 * command line ({@code --system-option graphile.version=0.17.3}).
 */
public record BenchEnvironment(
    Path workDir, Path resultsDir, PrintStream out, Map<String, String> options) {

  public String option(String key, String fallback) {
    return options.getOrDefault(key, fallback);
  }
}
