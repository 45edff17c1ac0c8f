package dev.rota.bench;

import dev.rota.bench.report.BenchResults;
import dev.rota.bench.scale.ScaleSettings;
import dev.rota.server.CommonPool;
import java.nio.file.Path;
import java.time.Duration;
import java.time.LocalDateTime;
import java.time.format.DateTimeFormatter;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/**
 * {@code java -jar rota-bench.jar}: runs the comparison on an embedded PostgreSQL. Options left out
 * keep the defaults ({@link BenchConfig#defaults()}, or {@link BenchConfig#quick()} with {@code
 * --quick}). Exits 1 when a workload failed, 2 on bad options.
 */
@Command(
    name = "rota-bench",
    mixinStandardHelpOptions = true,
    sortOptions = false,
    description = {
      "Runs each system on the same embedded PostgreSQL, one after another, with the same"
          + " workloads, and prints a table with ratios.",
      "Systems: seed-sql, graphile, graphile-tuned, rota, rota-http.",
      "Workloads: burn-down, backlog, trickle, fairness; scale only when named."
    })
public final class BenchMain implements Callable<Integer> {

  @Option(names = "--systems", split = ",", description = "Systems to run, in order.")
  List<String> systems;

  @Option(names = "--workloads", split = ",", description = "Workloads to run, in order.")
  List<String> workloads;

  @Option(names = "--quick", description = "Tiny sizes, for a smoke run.")
  boolean quick;

  @Option(
      names = "--budget",
      description =
          "Where an activation's CPU goes: backlog 20k at R = 24 on rota and rota-http, 10 s"
              + " warm-up, 20 s counted (options given change that), each level profiled with JFR"
              + " and PostgreSQL's counters;"
              + " prints the budget and writes budget.md.")
  boolean budget;

  @Option(names = "--results-dir", description = "Default: bench-results/<timestamp>.")
  Path resultsDir;

  @Option(
      names = "--work-dir",
      description = "Cache for installs (graphile-worker). Default: target.")
  Path workDir;

  @Option(
      names = {"-R", "--runners"},
      description = "Runners R for every workload (default 8).")
  Integer runners;

  @Option(
      names = "--agents",
      description = "Agents for burn-down, backlog, trickle (default 20000).")
  Integer agents;

  @Option(names = "--notifications", description = "Burn-down backlog (default 200000).")
  Long notifications;

  @Option(names = "--hot-agents", description = "Burn-down backlog spread over (default 2000).")
  Integer hotAgents;

  @Option(names = "--skew", description = "Burn-down skew exponent, 0 even, 1 Zipf (default 0.5).")
  Double skew;

  @Option(
      names = "--burn-down-seconds",
      description = "Cap on burn-down if not drained (default 15).")
  Integer burnDownSeconds;

  @Option(names = "--backlog-levels", split = ",", description = "Default 2000,20000,200000.")
  List<Long> backlogLevels;

  @Option(
      names = "--backlog-runners",
      split = ",",
      description = "Runner counts R of the backlog workload (default 8,24; -R alone sets one).")
  List<Integer> backlogRunners;

  @Option(
      names = "--publishers-in-bench-jvm",
      description =
          "Trickle publishes from the bench's JVM even where the system takes notifications over"
              + " HTTP (by default Rota's publishers run in a JVM of their own).")
  boolean publishersInBenchJvm;

  @Option(
      names = "--backlog-seconds",
      description =
          "Steady time counted per backlog level, after its warm-up and without its top-ups"
              + " (default 10).")
  Integer backlogSeconds;

  @Option(
      names = "--backlog-activations",
      description =
          "Activations counted per backlog level at least; the level runs until both this and"
              + " --backlog-seconds are reached (default 10000).")
  Long backlogActivations;

  @Option(
      names = "--backlog-warmup-seconds",
      description = "Not counted at the start of each backlog level (default 3).")
  Integer backlogWarmupSeconds;

  @Option(
      names = "--backlog-max-seconds",
      description =
          "Each backlog level ends this long after its first claim, steady or not (default 60).")
  Integer backlogMaxSeconds;

  @Option(names = "--trickle-rates", split = ",", description = "Per second (default 200,2000).")
  List<Integer> trickleRates;

  @Option(names = "--trickle-seconds", description = "Per rate (default 10).")
  Integer trickleSeconds;

  @Option(
      names = "--trickle-warmup-seconds",
      description =
          "Published at the first rate before it is measured, for every system alike (default 3).")
  Integer trickleWarmupSeconds;

  @Option(names = "--publishers", description = "Publisher threads in trickle (default 16).")
  Integer publishers;

  @Option(names = "--fairness-agents", description = "N for fairness (default 1000).")
  Integer fairnessAgents;

  @Option(names = "--activation-ms", description = "T for fairness, in ms (default 20).")
  Integer activationMillis;

  @Option(names = "--fairness-seconds", description = "Default 10.")
  Integer fairnessSeconds;

  @Option(
      names = "--scale",
      description =
          "The scale workload alone, on rota, with 1,000,000 agents (see --scale-agents).")
  boolean scale;

  @Option(names = "--scale-agents", description = "Agents of the scale workload (default 20000).")
  Integer scaleAgents;

  @Option(
      names = "--scale-max-minutes",
      description =
          "Stop registering after this long and measure the agents registered by then (default"
              + " 120).")
  Integer scaleMaxMinutes;

  @Option(
      names = "--scale-synthetic",
      description =
          "Scale without registering: agent_schedule rows written by SQL, restart measured only.")
  boolean scaleSynthetic;

  @Option(names = "--progress-seconds", description = "Progress line interval (default 3).")
  Integer progressSeconds;

  @Option(names = "--seed", description = "Random seed for trickle recipients (default 42).")
  Long seed;

  @Option(
      names = "--pg",
      description = "PostgreSQL setting, repeatable, e.g. --pg synchronous_commit=off.")
  Map<String, String> postgresSettings;

  @Option(
      names = "--system-option",
      description =
          "System option, repeatable: graphile.version=0.17.3, graphile.dir=PATH,"
              + " graphile.node=PATH, seed-sql.idle-poll-ms=50, rota.node.<key>=<value>.")
  Map<String, String> systemOptions;

  @Spec CommandSpec spec;

  public static void main(String[] args) {
    CommonPool.atLeastTwoThreads();
    System.setProperty("java.awt.headless", "true");
    System.setProperty("slf4j.internal.verbosity", "WARN");
    if (System.getProperty("logback.configurationFile") == null) {
      System.setProperty("logback.configurationFile", "rota-bench-logback.xml");
    }
    System.exit(new CommandLine(new BenchMain()).execute(args));
  }

  @Override
  public Integer call() throws Exception {
    BenchConfig config;
    try {
      config = config();
    } catch (IllegalArgumentException e) {
      // A bad option value: picocli prints the message and the usage, exit code 2.
      throw new ParameterException(spec.commandLine(), e.getMessage());
    }
    BenchResults results = new BenchRun(config, System.out).run();
    return results.anyFailed() ? 1 : 0;
  }

  BenchConfig config() {
    BenchConfig.Builder b = quick ? BenchConfig.quick() : BenchConfig.defaults();
    if (budget) {
      b.budget = true;
      b.systems = List.of("rota", "rota-http");
      b.workloads = List.of("backlog");
      b.backlogLevels = List.of(20_000L);
      b.runners = 24;
      b.backlogRunners = List.of(24);
      b.backlogWarmup = Duration.ofSeconds(10);
      b.backlogWindow = Duration.ofSeconds(20);
      b.postgresSettings.put("shared_preload_libraries", "pg_stat_statements");
    }
    if (systems != null) b.systems = systems;
    if (workloads != null) b.workloads = workloads;
    if (runners != null) b.runners = runners;
    if (agents != null) b.agents = agents;
    if (notifications != null) b.notifications = notifications;
    if (hotAgents != null) b.hotAgents = hotAgents;
    if (skew != null) b.skew = skew;
    if (burnDownSeconds != null) b.burnDownCap = Duration.ofSeconds(burnDownSeconds);
    if (backlogLevels != null) b.backlogLevels = backlogLevels;
    if (backlogSeconds != null) b.backlogWindow = Duration.ofSeconds(backlogSeconds);
    if (backlogActivations != null) b.backlogActivations = backlogActivations;
    if (backlogWarmupSeconds != null) b.backlogWarmup = Duration.ofSeconds(backlogWarmupSeconds);
    if (backlogMaxSeconds != null) b.backlogCap = Duration.ofSeconds(backlogMaxSeconds);
    if (publishersInBenchJvm) {
      b.publisherProcess = false;
    }
    if (backlogRunners != null) {
      b.backlogRunners = backlogRunners;
    } else if (runners != null) {
      b.backlogRunners = List.of(runners);
    }
    if (trickleRates != null) b.trickleRates = trickleRates;
    if (trickleSeconds != null) b.trickleDuration = Duration.ofSeconds(trickleSeconds);
    if (trickleWarmupSeconds != null) b.trickleWarmup = Duration.ofSeconds(trickleWarmupSeconds);
    if (publishers != null) b.publishers = publishers;
    if (fairnessAgents != null) b.fairnessAgents = fairnessAgents;
    if (activationMillis != null) b.activationTime = Duration.ofMillis(activationMillis);
    if (fairnessSeconds != null) b.fairnessDuration = Duration.ofSeconds(fairnessSeconds);
    if (progressSeconds != null) b.progressInterval = Duration.ofSeconds(progressSeconds);
    if (seed != null) b.seed = seed;
    if (scale) {
      b.scale = b.scale.withAgents(ScaleSettings.MILLION);
      if (workloads == null) b.workloads = List.of("scale");
      if (systems == null) b.systems = List.of("rota");
    }
    if (scaleAgents != null) b.scale = b.scale.withAgents(scaleAgents);
    if (scaleSynthetic) b.scale = b.scale.withSynthetic(true);
    if (scaleMaxMinutes != null) {
      b.scale = b.scale.withRegistrationCap(Duration.ofMinutes(scaleMaxMinutes));
    }
    if (postgresSettings != null) b.postgresSettings.putAll(postgresSettings);
    if (systemOptions != null) b.systemOptions.putAll(systemOptions);
    b.workDir = workDir != null ? workDir : defaultWorkDir();
    b.resultsDir =
        resultsDir != null
            ? resultsDir
            : Path.of(
                "bench-results",
                LocalDateTime.now().format(DateTimeFormatter.ofPattern("yyyyMMdd-HHmmss")));
    return b.build();
  }

  /**
   * {@code target/} next to the jar (or classes) the bench runs from, so installs stay out of git.
   */
  private static Path defaultWorkDir() {
    try {
      Path code =
          Path.of(BenchMain.class.getProtectionDomain().getCodeSource().getLocation().toURI());
      Path parent = code.getParent();
      if (parent != null
          && parent.getFileName() != null
          && parent.getFileName().toString().equals("target")) {
        return parent;
      }
    } catch (Exception ignored) {
      // fall through to a relative default
    }
    return Path.of("target");
  }
}
