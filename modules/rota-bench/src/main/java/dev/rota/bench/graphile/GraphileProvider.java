package dev.rota.bench.graphile;

import dev.rota.bench.system.Availability;
import dev.rota.bench.system.BenchEnvironment;
import dev.rota.bench.system.BenchSystem;
import dev.rota.bench.system.BenchSystemProvider;
import java.nio.file.Path;

/**
 * {@code graphile} and {@code graphile-tuned}. Both share one install (per folder and version),
 * made on first {@link #prepare}. Options: {@code graphile.version}, {@code graphile.dir}, {@code
 * graphile.node}.
 */
public final class GraphileProvider implements BenchSystemProvider {

  static final String VERSION_OPTION = "graphile.version";
  static final String DIR_OPTION = "graphile.dir";
  static final String NODE_OPTION = "graphile.node";

  private static GraphileInstall shared;

  private final GraphileSettings settings;
  private GraphileInstall install;

  public GraphileProvider(GraphileSettings settings) {
    this.settings = settings;
  }

  @Override
  public String name() {
    return settings.systemName();
  }

  @Override
  public String description() {
    String version = install == null ? GraphileInstall.DEFAULT_VERSION : install.version();
    String node =
        install == null || install.nodeVersion().isEmpty()
            ? ""
            : " on Node " + install.nodeVersion();
    return "graphile-worker "
        + version
        + node
        + ", one no-op job per notification, "
        + (settings == GraphileSettings.DEFAULT
            ? "default settings"
            : "performance-page settings " + settings.workerPreset());
  }

  @Override
  public Availability prepare(BenchEnvironment environment) {
    install = installFor(environment);
    return install.ensure();
  }

  @Override
  public BenchSystem create(BenchEnvironment environment) {
    GraphileInstall ready = install != null ? install : installFor(environment);
    return new GraphileSystem(
        ready,
        settings,
        environment.resultsDir().resolve(settings.systemName() + ".log"),
        environment.out());
  }

  private static synchronized GraphileInstall installFor(BenchEnvironment environment) {
    String version = environment.option(VERSION_OPTION, GraphileInstall.DEFAULT_VERSION);
    Path folder =
        environment.options().containsKey(DIR_OPTION)
            ? Path.of(environment.options().get(DIR_OPTION))
            : environment.workDir().resolve("graphile-worker-" + version);
    String node = environment.option(NODE_OPTION, GraphileInstall.DEFAULT_NODE);
    if (shared == null
        || !shared.folder().equals(folder)
        || !shared.version().equals(version)
        || !shared.node().equals(node)) {
      shared = new GraphileInstall(folder, version, node);
    }
    return shared;
  }
}
