package dev.rota.bench;

import dev.rota.bench.scale.ScaleSettings;
import java.nio.file.Path;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * All sizes and bounds of one bench run. {@link #defaults()} fits the budget (about 1.5
 * minutes per system on 2 cores); {@link #quick()} is for smoke tests and trying things out.
 *
 * @param agents population of burn-down, backlog and trickle
 * @param hotAgents burn-down's backlog is spread over the first {@code hotAgents} agents
 * @param notifications burn-down's backlog
 * @param skew burn-down's skew exponent (see {@code InboxSeed.skewed})
 * @param runners R, for every workload
 * @param burnDownCap burn-down stops here if not drained (counted from the first claim)
 * @param backlogLevels backlog sizes measured for the scaling line
 * @param backlogWindow each level counts at least this long, after its warm-up
 * @param backlogActivations each level counts at least this many activations, after its warm-up
 * @param backlogWarmup each level's first part, from the first claim, not counted
 * @param backlogCap each level ends this long after its first claim, steady or not
 * @param backlogRunners the runner counts R at which every backlog level is measured
 * @param trickleRates publish rates, one phase each
 * @param trickleDuration how long each rate is held
 * @param trickleDrain after publishing, how long to wait for the last claims
 * @param trickleWarmup before the first rate is measured, how long it is published unmeasured
 * @param publisherProcess trickle publishes from a JVM of its own where the system takes
 *     notifications over HTTP (Rota), so the node under test does not share its CPU with them
 * @param publishers threads publishing in trickle
 * @param fairnessAgents N of the fairness workload
 * @param activationTime T of the fairness workload (other workloads use no-op activations)
 * @param fairnessDuration how long exploration runs, counted from the first claim
 * @param scale sizes of the opt-in {@code scale} workload
 * @param budget each backlog level also measures where its activations' CPU goes (JFR, the JVM's
 *     threads, PostgreSQL's counters) and the run prints the budget ({@code --budget})
 */
public record BenchConfig(
    List<String> workloads,
    List<String> systems,
    int agents,
    int hotAgents,
    long notifications,
    double skew,
    int runners,
    Duration burnDownCap,
    List<Long> backlogLevels,
    Duration backlogWindow,
    long backlogActivations,
    Duration backlogWarmup,
    Duration backlogCap,
    List<Integer> backlogRunners,
    List<Integer> trickleRates,
    Duration trickleDuration,
    Duration trickleDrain,
    Duration trickleWarmup,
    boolean publisherProcess,
    int publishers,
    int fairnessAgents,
    Duration activationTime,
    Duration fairnessDuration,
    Path resultsDir,
    Path workDir,
    Duration progressInterval,
    long seed,
    Map<String, String> postgresSettings,
    Map<String, String> systemOptions,
    ScaleSettings scale,
    boolean budget) {

  public static final List<String> ALL_WORKLOADS =
      List.of("burn-down", "backlog", "trickle", "fairness");

  /** Run only when named: {@code --workloads scale} or {@code --scale}. */
  public static final List<String> OPT_IN_WORKLOADS = List.of("scale");

  public static final List<String> ALL_SYSTEMS =
      List.of("seed-sql", "graphile", "graphile-tuned", "rota", "rota-http");

  public static Builder defaults() {
    return new Builder();
  }

  /** Tiny sizes: the whole run in well under a minute per system. */
  public static Builder quick() {
    Builder b = new Builder();
    b.agents = 300;
    b.hotAgents = 60;
    b.notifications = 3_000;
    b.runners = 4;
    b.burnDownCap = Duration.ofSeconds(20);
    b.backlogLevels = List.of(200L, 2_000L);
    b.backlogWindow = Duration.ofSeconds(2);
    b.backlogActivations = 200;
    b.backlogWarmup = Duration.ofSeconds(1);
    b.backlogCap = Duration.ofSeconds(20);
    b.backlogRunners = List.of(4);
    b.trickleRates = List.of(50, 200);
    b.trickleDuration = Duration.ofSeconds(2);
    b.trickleDrain = Duration.ofSeconds(5);
    b.trickleWarmup = Duration.ofSeconds(1);
    b.publishers = 4;
    b.fairnessAgents = 40;
    b.activationTime = Duration.ofMillis(5);
    b.fairnessDuration = Duration.ofSeconds(2);
    b.progressInterval = Duration.ofSeconds(1);
    b.scale = ScaleSettings.quick();
    return b;
  }

  /** Defaults, overridable field by field; {@code null} is never a valid value. */
  public static final class Builder {
    public List<String> workloads = ALL_WORKLOADS;
    public List<String> systems = ALL_SYSTEMS;
    public int agents = 20_000;
    public int hotAgents = 2_000;
    public long notifications = 200_000;
    public double skew = 0.5;
    public int runners = 8;
    public Duration burnDownCap = Duration.ofSeconds(15);
    public List<Long> backlogLevels = List.of(2_000L, 20_000L, 200_000L);
    public Duration backlogWindow = Duration.ofSeconds(10);
    public long backlogActivations = 10_000;
    public Duration backlogWarmup = Duration.ofSeconds(3);
    public Duration backlogCap = Duration.ofSeconds(60);
    public List<Integer> backlogRunners = List.of(8, 24);
    public List<Integer> trickleRates = List.of(200, 2_000);
    public Duration trickleDuration = Duration.ofSeconds(10);
    public Duration trickleDrain = Duration.ofSeconds(5);
    public Duration trickleWarmup = Duration.ofSeconds(3);
    public boolean publisherProcess = true;
    public int publishers = 16;
    public int fairnessAgents = 1_000;
    public Duration activationTime = Duration.ofMillis(20);
    public Duration fairnessDuration = Duration.ofSeconds(10);
    public Path resultsDir = null;
    public Path workDir = Path.of("target");
    public Duration progressInterval = Duration.ofSeconds(3);
    public long seed = 42;
    public Map<String, String> postgresSettings = new LinkedHashMap<>();
    public Map<String, String> systemOptions = new LinkedHashMap<>();
    public ScaleSettings scale = ScaleSettings.defaults();
    public boolean budget = false;

    public BenchConfig build() {
      if (resultsDir == null) {
        throw new IllegalStateException("resultsDir is required");
      }
      if (backlogRunners.isEmpty() || backlogRunners.stream().anyMatch(r -> r < 1)) {
        throw new IllegalArgumentException("backlog runner counts must be at least 1");
      }
      if (runners < 1 || agents < 1 || fairnessAgents < 1 || publishers < 1) {
        throw new IllegalArgumentException("runners, agents and publishers must be at least 1");
      }
      if (hotAgents < 1 || hotAgents > agents) {
        throw new IllegalArgumentException("hot agents must be between 1 and agents");
      }
      if (activationTime.isNegative() || activationTime.isZero()) {
        throw new IllegalArgumentException("the fairness activation time T must be positive");
      }
      if (backlogWarmup.isNegative()
          || backlogWindow.isNegative()
          || backlogActivations < 0
          || backlogCap.compareTo(backlogWarmup.plus(backlogWindow)) < 0) {
        throw new IllegalArgumentException(
            "the backlog cap must leave room for its warm-up and window, none negative");
      }
      if (trickleWarmup.isNegative()) {
        throw new IllegalArgumentException("the trickle warm-up cannot be negative");
      }
      for (String w : workloads) {
        if (!ALL_WORKLOADS.contains(w) && !OPT_IN_WORKLOADS.contains(w)) {
          throw new IllegalArgumentException(
              "unknown workload '"
                  + w
                  + "'; known: "
                  + String.join(", ", ALL_WORKLOADS)
                  + ", "
                  + String.join(", ", OPT_IN_WORKLOADS));
        }
      }
      return new BenchConfig(
          List.copyOf(workloads),
          List.copyOf(systems),
          agents,
          hotAgents,
          notifications,
          skew,
          runners,
          burnDownCap,
          List.copyOf(backlogLevels),
          backlogWindow,
          backlogActivations,
          backlogWarmup,
          backlogCap,
          List.copyOf(backlogRunners),
          List.copyOf(trickleRates),
          trickleDuration,
          trickleDrain,
          trickleWarmup,
          publisherProcess,
          publishers,
          fairnessAgents,
          activationTime,
          fairnessDuration,
          resultsDir,
          workDir,
          progressInterval,
          seed,
          Map.copyOf(postgresSettings),
          Map.copyOf(systemOptions),
          scale,
          budget);
    }
  }

  /** The parameters as reported in results (what a reader needs to reproduce the run). */
  public Map<String, Object> describe() {
    Map<String, Object> d = new LinkedHashMap<>();
    d.put("workloads", String.join(",", workloads));
    d.put("agents", agents);
    d.put("burnDownBacklog", notifications + " over " + hotAgents + " agents, skew " + skew);
    d.put("runners", runners);
    d.put("burnDownCapSeconds", burnDownCap.toSeconds());
    d.put("backlogLevels", backlogLevels);
    d.put("backlogWindowSeconds", backlogWindow.toSeconds());
    d.put("backlogMinActivations", backlogActivations);
    d.put("backlogWarmupSeconds", backlogWarmup.toSeconds());
    d.put("backlogMaxSeconds", backlogCap.toSeconds());
    d.put("backlogRunners", backlogRunners);
    d.put("trickleRates", trickleRates);
    d.put("trickleSecondsPerRate", trickleDuration.toSeconds());
    d.put("trickleWarmupSeconds", trickleWarmup.toSeconds());
    d.put("tricklePublishers", publisherProcess ? "own process" : "bench JVM");
    d.put("fairnessAgents", fairnessAgents);
    d.put("activationTimeMs", activationTime.toMillis());
    d.put("fairnessSeconds", fairnessDuration.toSeconds());
    d.put("seed", seed);
    if (budget) {
      d.put("budget", true);
    }
    if (workloads.contains("scale")) {
      d.put("scaleAgents", scale.agents());
      d.put("scaleConcurrency", scale.concurrency());
      d.put("scaleIdleSeconds", scale.idleWait().toSeconds());
    }
    return d;
  }
}
