package dev.rota.bench.rota;

import dev.rota.bench.postgres.BenchPostgres;
import dev.rota.bench.system.BenchDatabase;
import dev.rota.bench.system.ClaimedActivation;
import dev.rota.bench.system.Completion;
import dev.rota.bench.system.RunnerListener;
import dev.rota.cluster.tenant.TenantSharesView;
import dev.rota.core.tenant.AgentKeys;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;

/**
 * The tenants workload: the rule across tenants on one node, on the bench's PostgreSQL, with four
 * runners in hybrid mode and turns of 20 ms (in-cluster runners, or with {@code --http} runner
 * threads over {@code POST /v1/claims}). Notifications go through the agents (keys {@code
 * <tenant>/<id>}), timed from just before the call to the claim that carries them.
 *
 * <ul>
 *   <li>{@code noisy}: tenant {@code loud}'s 200 agents flooded at 400–600 notifications/s (a rate
 *       drawn each second) beside tenant {@code quiet}'s 10 agents, each notified every 2 s (one of
 *       them every 200 ms); quiet's notification → claim p50/p99/max and every tenant's turns.
 *       {@code --single-tenant} puts both groups in the default tenant: the rule before tenants.
 *   <li>{@code weights}: tenants {@code acme} (weight 3) and {@code beta} (weight 1), 100 agents
 *       each, both always with work: staleness work (every agent is eligible whenever it is not
 *       leased), or with {@code --rate N} inbox work too, N notifications/s to each tenant; each
 *       tenant's activations over the measured window against 75/25.
 * </ul>
 *
 * <pre>
 * java -cp modules/rota-bench/target/rota-bench.jar dev.rota.bench.rota.TenantsBench noisy
 * java -cp modules/rota-bench/target/rota-bench.jar dev.rota.bench.rota.TenantsBench weights --http
 * </pre>
 */
public final class TenantsBench {
  private static final int RUNNERS = 4;
  private static final Duration TURN = Duration.ofMillis(20);
  private static final Duration WARM_UP = Duration.ofSeconds(5);

  private final String scenario;
  private final int seconds;
  private final boolean singleTenant;
  private final boolean http;
  private final int rate;

  private final Map<Long, Long> publishedAtMicros = new ConcurrentHashMap<>();
  private final Map<Long, Long> acceptedAtMicros = new ConcurrentHashMap<>();
  private final List<Long> quietAcceptMicros =
      java.util.Collections.synchronizedList(new ArrayList<>());
  private final List<Long> quietAfterAcceptMicros =
      java.util.Collections.synchronizedList(new ArrayList<>());
  private final Map<Long, String> tokenTenant = new ConcurrentHashMap<>();
  private final Map<String, LongAdder> turns = new ConcurrentHashMap<>();
  private final List<Long> quietLatencyMicros =
      java.util.Collections.synchronizedList(new ArrayList<>());
  private final AtomicLong tokens = new AtomicLong();
  private final AtomicBoolean counting = new AtomicBoolean();
  private final LongAdder published = new LongAdder();

  private TenantsBench(String scenario, int seconds, boolean singleTenant, boolean http, int rate) {
    this.rate = rate;
    this.scenario = scenario;
    this.seconds = seconds;
    this.singleTenant = singleTenant;
    this.http = http;
  }

  public static void main(String[] args) throws Exception {
    if (args.length == 0 || !(args[0].equals("noisy") || args[0].equals("weights"))) {
      System.err.println(
          "usage: TenantsBench noisy|weights [--seconds 60] [--single-tenant] [--http] [--rate N]");
      System.exit(2);
    }
    List<String> rest = Arrays.asList(args).subList(1, args.length);
    int seconds = 60;
    int i = rest.indexOf("--seconds");
    if (i >= 0) {
      seconds = Integer.parseInt(rest.get(i + 1));
    }
    int rate = 0;
    int r = rest.indexOf("--rate");
    if (r >= 0) {
      rate = Integer.parseInt(rest.get(r + 1));
    }
    new TenantsBench(
            args[0], seconds, rest.contains("--single-tenant"), rest.contains("--http"), rate)
        .run();
    System.exit(0);
  }

  private String tenantOf(String agentId) {
    char c = AgentKeys.agentIdOf(agentId).charAt(0);
    return switch (c) {
      case 'q' -> "quiet";
      case 'l' -> "loud";
      case 'a' -> "acme";
      default -> "beta";
    };
  }

  private String key(String tenant, String id) {
    return singleTenant ? id : AgentKeys.key(tenant, id);
  }

  private void run() throws Exception {
    String benchId = UUID.randomUUID().toString();
    BenchExecutor.Hooks hooks = BenchExecutor.register(benchId);
    hooks.activationTime = TURN;
    hooks.listener =
        new RunnerListener() {
          @Override
          public void onClaim(ClaimedActivation claim) {
            claimed(claim.agentId(), claim.tokens(), claim.claimedAtMicros());
          }

          @Override
          public void onComplete(Completion completion) {}
        };
    Map<String, Object> settings = new HashMap<>();
    settings.put("rota.runners.enabled", !http);
    settings.put("rota.runners.max-per-node", 16);
    settings.put(
        "rota.runners.pools",
        List.of(
            Map.of(
                "name",
                "bench",
                "count",
                0,
                "min",
                0,
                "max",
                RUNNERS,
                "mode",
                "hybrid",
                "executor",
                BenchExecutor.class.getName(),
                "executor-settings",
                Map.of(BenchExecutor.BENCH_ID, benchId))));
    List<String> group1;
    List<String> group2;
    if (scenario.equals("noisy")) {
      settings.put("rota.tenants.loud.weight", 1);
      settings.put("rota.tenants.quiet.weight", 1);
      group1 = ids("loud", "l", 200);
      group2 = ids("quiet", "q", 10);
    } else {
      settings.put("rota.tenants.acme.weight", 3);
      settings.put("rota.tenants.beta.weight", 1);
      group1 = ids("acme", "a", 100);
      group2 = ids("beta", "b", 100);
    }
    String load = uptime();
    try (BenchPostgres postgres = BenchPostgres.start(Map.of())) {
      BenchDatabase database = postgres.createDatabase("tenants");
      try (BenchNode node = BenchNode.start(database, settings)) {
        List<String> all = new ArrayList<>(group1);
        all.addAll(group2);
        node.registerKeys(all);
        ScheduledExecutorService publishers = Executors.newScheduledThreadPool(2);
        Random random = new Random(42);
        if (scenario.equals("noisy")) {
          int[] rate = {500};
          publishers.scheduleAtFixedRate(
              () -> rate[0] = 400 + random.nextInt(201), 0, 1, TimeUnit.SECONDS);
          publishers.scheduleAtFixedRate(
              () -> {
                for (int k = 0; k < rate[0] / 100; k++) {
                  publish(node, group1.get(random.nextInt(group1.size())), "loud");
                }
              },
              0,
              10,
              TimeUnit.MILLISECONDS);
          int[] next = {0};
          publishers.scheduleAtFixedRate(
              () -> publish(node, group2.get(next[0]++ % group2.size()), "quiet"),
              0,
              200,
              TimeUnit.MILLISECONDS);
        } else if (rate > 0) {
          publishers.scheduleAtFixedRate(
              () -> {
                for (int k = 0; k < rate / 100; k++) {
                  publish(node, group1.get(random.nextInt(group1.size())), "acme");
                  publish(node, group2.get(random.nextInt(group2.size())), "beta");
                }
              },
              0,
              10,
              TimeUnit.MILLISECONDS);
        }
        List<Thread> httpRunners = new ArrayList<>();
        AtomicBoolean running = new AtomicBoolean(true);
        if (http) {
          for (int r = 0; r < RUNNERS; r++) {
            String runnerId = "bench-http-" + r;
            Thread t =
                new Thread(
                    () ->
                        TenantsHttpRunner.run(
                            node.apiBase(), runnerId, TURN, running, this::claimed));
            t.setDaemon(true);
            t.start();
            httpRunners.add(t);
          }
        } else {
          NodeActors.startPool(node, RUNNERS);
        }
        Thread.sleep(WARM_UP.toMillis());
        turns.clear();
        quietLatencyMicros.clear();
        quietAcceptMicros.clear();
        quietAfterAcceptMicros.clear();
        counting.set(true);
        long start = System.nanoTime();
        Thread.sleep(seconds * 1000L);
        counting.set(false);
        double window = (System.nanoTime() - start) / 1e9;
        TenantSharesView view = NodeActors.shares(node);
        publishers.shutdownNow();
        running.set(false);
        report(load, window, view);
      }
    }
  }

  private List<String> ids(String tenant, String prefix, int n) {
    List<String> keys = new ArrayList<>(n);
    for (int i = 0; i < n; i++) {
      keys.add(key(tenant, prefix + i));
    }
    return keys;
  }

  private void publish(BenchNode node, String key, String tenant) {
    long token = tokens.incrementAndGet();
    if (tenant.equals("quiet")) {
      tokenTenant.put(token, tenant);
      publishedAtMicros.put(token, dev.rota.bench.system.BenchClock.nowMicros());
    }
    published.increment();
    var reply = node.notifyAsync(key, token);
    if (tenant.equals("quiet")) {
      reply.thenRun(
          () -> {
            long at = dev.rota.bench.system.BenchClock.nowMicros();
            acceptedAtMicros.put(token, at);
            Long sent = publishedAtMicros.get(token);
            if (counting.get() && sent != null) {
              quietAcceptMicros.add(at - sent);
            }
          });
    }
  }

  private void claimed(String agentId, long[] carried, long claimedAtMicros) {
    if (!counting.get()) {
      for (long token : carried) {
        publishedAtMicros.remove(token);
      }
      return;
    }
    turns.computeIfAbsent(tenantOf(agentId), t -> new LongAdder()).increment();
    for (long token : carried) {
      Long at = publishedAtMicros.remove(token);
      if (at != null) {
        quietLatencyMicros.add(claimedAtMicros - at);
        Long accepted = acceptedAtMicros.remove(token);
        if (accepted != null) {
          quietAfterAcceptMicros.add(claimedAtMicros - accepted);
        }
      }
    }
  }

  private void report(String load, double window, TenantSharesView view) {
    long total = turns.values().stream().mapToLong(LongAdder::sum).sum();
    System.out.printf(
        "tenants %s%s%s%s: %d runners (hybrid, %d ms turns), %.1f s measured after %d s warm-up%n",
        scenario,
        rate > 0 ? " (" + rate + " notifications/s per tenant)" : "",
        singleTenant ? " (single tenant)" : "",
        http ? " over HTTP" : " in-cluster",
        RUNNERS,
        TURN.toMillis(),
        window,
        WARM_UP.toSeconds());
    System.out.println("load before: " + load);
    System.out.println("load after:  " + uptime());
    System.out.printf(
        "turns: %d (%.1f/s; runners busy %.0f %%)%n",
        total, total / window, 100.0 * total * TURN.toMillis() / 1000.0 / (RUNNERS * window));
    turns.entrySet().stream()
        .sorted(Map.Entry.comparingByKey())
        .forEach(
            e ->
                System.out.printf(
                    "  %-6s %7d turns  %5.1f %%%n",
                    e.getKey(), e.getValue().sum(), 100.0 * e.getValue().sum() / total));
    if (scenario.equals("noisy")) {
      List<Long> latencies = new ArrayList<>(quietLatencyMicros);
      latencies.sort(Long::compare);
      int unclaimed =
          (int) publishedAtMicros.keySet().stream().filter(tokenTenant::containsKey).count();
      System.out.printf(
          "quiet notification -> claim: n=%d p50 %.3f s p99 %.3f s max %.3f s (%d not claimed)%n",
          latencies.size(),
          pct(latencies, 0.50),
          pct(latencies, 0.99),
          latencies.isEmpty() ? Double.NaN : latencies.get(latencies.size() - 1) / 1e6,
          unclaimed);
      for (var part :
          List.of(
              Map.entry("  of which publish -> accepted (persisted)", quietAcceptMicros),
              Map.entry("  of which accepted -> claim", quietAfterAcceptMicros))) {
        List<Long> sorted = new ArrayList<>(part.getValue());
        sorted.sort(Long::compare);
        System.out.printf(
            "%s: n=%d p50 %.3f s p99 %.3f s%n",
            part.getKey(), sorted.size(), pct(sorted, 0.50), pct(sorted, 0.99));
      }
    }
    System.out.printf("dispatcher's shares over %.0f s:%n", view.windowSeconds());
    for (TenantSharesView.Share s : view.tenants()) {
      if (s.activations() > 0) {
        System.out.printf(
            "  %-7s weight %d: %d activations, %.1f runner-s, actual %.3f, fair %.3f%n",
            s.tenant(), s.weight(), s.activations(), s.runnerSeconds(), s.actual(), s.fair());
      }
    }
  }

  private static double pct(List<Long> sorted, double p) {
    if (sorted.isEmpty()) {
      return Double.NaN;
    }
    int i = (int) Math.min(sorted.size() - 1, Math.ceil(p * sorted.size()) - 1);
    return sorted.get(Math.max(0, i)) / 1e6;
  }

  private static String uptime() {
    try {
      return new String(new ProcessBuilder("uptime").start().getInputStream().readAllBytes())
          .trim();
    } catch (Exception e) {
      return "?";
    }
  }
}
