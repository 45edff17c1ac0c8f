package dev.rota.faults;

import dev.rota.faults.history.Event;
import dev.rota.faults.history.Event.Fault;
import dev.rota.faults.history.Event.Granted;
import dev.rota.faults.history.Event.Outcome;
import dev.rota.faults.history.Event.Placement;
import dev.rota.faults.history.Event.Published;
import dev.rota.faults.history.History;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.OffsetDateTime;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * Where the seconds of one run's failover went: {@code FailoverTimeline <run dir>...} reads a run's
 * {@code history.jsonl} and its nodes' logs ({@code nodes/node-<i>-<start>.log}) and prints, in
 * seconds from the fault, when each node logged the steps of the hand-over (unreachable, the
 * resolver's decision, removal, singletons and shard coordinators started, the coordinator active),
 * the heartbeats sent late before and after, when each of the faulty node's agents was first
 * acknowledged and first granted to a runner again, and what the producers saw meanwhile (failures
 * by kind, per second).
 */
public final class FailoverTimeline {
  /**
   * The steps, in the order they happen, each the first matching line of a node's log (per type of
   * entity where the pattern names one: {@code what}).
   */
  private static final Map<String, Pattern> STEPS = new LinkedHashMap<>();

  static {
    STEPS.put("marked unreachable", Pattern.compile("Marking node as UNREACHABLE"));
    STEPS.put("resolver waits stable-after", Pattern.compile("SBR found unreachable members"));
    STEPS.put("resolver decides", Pattern.compile("SBR took decision"));
    STEPS.put("downed", Pattern.compile("SBR is downing"));
    STEPS.put("removed", Pattern.compile("Leader is removing"));
    STEPS.put(
        "becomes oldest",
        Pattern.compile(
            "ClusterSingletonManager state change \\[\\w+ -> (BecomingOldest|Oldest)\\]"));
    STEPS.put("singleton started", Pattern.compile("Singleton manager starting singleton actor"));
    STEPS.put(
        "coordinator active",
        Pattern.compile("(?<what>\\S+): ShardCoordinator was moved to the active state"));
    STEPS.put("region sees coordinator", Pattern.compile("(?<what>\\S+): Coordinator moved from"));
    STEPS.put("shard started", Pattern.compile("Starting shard \\["));
    STEPS.put(
        "downed itself",
        Pattern.compile("Node has been marked as DOWN|including myself|exiting with status"));
  }

  private static final Pattern LATE_HEARTBEAT =
      Pattern.compile("heartbeat was delayed\\. Previous heartbeat was sent \\[(\\d+)\\] ms ago");

  private FailoverTimeline() {}

  public static void main(String[] args) throws IOException {
    for (String arg : args) {
      print(Path.of(arg));
    }
  }

  static void print(Path dir) throws IOException {
    List<Event> history = History.read(dir.resolve("history.jsonl"));
    Fault fault = firstFault(history);
    long at = fault.atMs();
    System.out.printf("%s: %s of node %d (%s)%n", dir, fault.kind(), fault.node(), fault.detail());
    Set<String> hosted = hosted(history, fault);
    for (Path log : logs(dir.resolve("nodes"))) {
      nodeSteps(log, at);
    }
    served(history, hosted, at);
    producers(history, hosted, at);
  }

  private static List<Path> logs(Path nodes) throws IOException {
    if (!Files.isDirectory(nodes)) {
      return List.of();
    }
    try (Stream<Path> files = Files.list(nodes)) {
      return files
          .filter(p -> p.getFileName().toString().matches("node-\\d+-\\d+\\.log"))
          .sorted()
          .toList();
    }
  }

  /** The first line of each step after the fault, and heartbeats sent late around it. */
  private static void nodeSteps(Path log, long at) throws IOException {
    Map<String, Double> first = new LinkedHashMap<>();
    int lateBefore = 0;
    int lateAfter = 0;
    long worstBefore = 0;
    long worstAfter = 0;
    for (String line : Files.readAllLines(log)) {
      long time = time(line);
      if (time < 0) {
        continue;
      }
      double t = (time - at) / 1000.0;
      Matcher late = LATE_HEARTBEAT.matcher(line);
      if (late.find() && t > -60 && t < 30) {
        long ms = Long.parseLong(late.group(1));
        if (t < 0) {
          lateBefore++;
          worstBefore = Math.max(worstBefore, ms);
        } else {
          lateAfter++;
          worstAfter = Math.max(worstAfter, ms);
        }
      }
      if (t < -0.5 || t > 60) {
        continue;
      }
      for (Map.Entry<String, Pattern> step : STEPS.entrySet()) {
        Matcher matcher = step.getValue().matcher(line);
        if (matcher.find()) {
          String key =
              step.getValue().pattern().contains("?<what>")
                  ? step.getKey() + " (" + matcher.group("what") + ")"
                  : step.getKey();
          first.putIfAbsent(key, t);
        }
      }
    }
    StringBuilder out = new StringBuilder("  " + log.getFileName() + ":");
    first.entrySet().stream()
        .sorted(Map.Entry.comparingByValue())
        .forEach(e -> out.append(String.format(" %s %.1f;", e.getKey(), e.getValue())));
    out.append(
        String.format(
            " heartbeats late: %d in the minute before (worst %d ms), %d in the 30 s after (worst"
                + " %d ms)",
            lateBefore, worstBefore, lateAfter, worstAfter));
    System.out.println(out);
  }

  /**
   * From the fault in {@code dir}'s history until the last of the faulty node's agents was first
   * acknowledged again by a closed-loop producer (which waits for the node's answer and its
   * Retry-After as an SDK client does), in ms; {@link Long#MAX_VALUE} if one never was.
   */
  public static long closedLoopServedAgainMs(Path dir) {
    List<Event> history = History.read(dir.resolve("history.jsonl"));
    Fault fault = firstFault(history);
    long worst = 0;
    for (String agent : hosted(history, fault)) {
      long first =
          history.stream()
              .filter(
                  e ->
                      e instanceof Published p
                          && p.agentId().equals(agent)
                          && p.key().startsWith("load-")
                          && p.startMs() >= fault.atMs()
                          && p.outcome() == Outcome.OK)
              .mapToLong(e -> ((Published) e).endMs() - fault.atMs())
              .min()
              .orElse(Long.MAX_VALUE);
      worst = Math.max(worst, first);
    }
    return worst;
  }

  private static Fault firstFault(List<Event> history) {
    return history.stream()
        .filter(e -> e instanceof Fault f && f.phase().equals(Fault.INJECTED))
        .map(e -> (Fault) e)
        .filter(f -> !f.kind().equals("restart"))
        .findFirst()
        .orElseThrow(() -> new IllegalArgumentException("no fault in the history"));
  }

  /** The faulty node's agents: its last placement before the fault. */
  private static Set<String> hosted(List<Event> history, Fault fault) {
    Placement last = null;
    for (Event e : history) {
      if (e instanceof Placement p
          && p.node() == fault.node()
          && p.atMs() <= fault.atMs()
          && (last == null || p.atMs() > last.atMs())) {
        last = p;
      }
    }
    return last == null ? Set.of() : new HashSet<>(last.agents());
  }

  /**
   * When each of the node's agents was first acknowledged (by any producer, and by the closed-loop
   * producers alone, which wait for the node's answer and its Retry-After as an SDK client does),
   * and first granted to a runner, again.
   */
  private static void served(List<Event> history, Set<String> hosted, long at) {
    List<Double> acknowledged = new ArrayList<>();
    List<Double> closedLoop = new ArrayList<>();
    List<Double> granted = new ArrayList<>();
    Map<Integer, Integer> servedOn = new TreeMap<>();
    for (String agent : hosted) {
      List<Published> ok =
          history.stream()
              .filter(
                  e ->
                      e instanceof Published p
                          && p.agentId().equals(agent)
                          && p.startMs() >= at
                          && p.outcome() == Outcome.OK)
              .map(e -> (Published) e)
              .toList();
      ok.stream()
          .min(Comparator.comparingLong(Published::endMs))
          .ifPresent(
              p -> {
                acknowledged.add((p.endMs() - at) / 1000.0);
                servedOn.merge(p.node(), 1, Integer::sum);
              });
      ok.stream()
          .filter(p -> p.key().startsWith("load-"))
          .mapToLong(Published::endMs)
          .min()
          .ifPresent(ms -> closedLoop.add((ms - at) / 1000.0));
      history.stream()
          .filter(e -> e instanceof Granted g && g.agentId().equals(agent) && g.startMs() >= at)
          .mapToLong(e -> ((Granted) e).endMs())
          .min()
          .ifPresent(ms -> granted.add((ms - at) / 1000.0));
    }
    System.out.printf(
        "  the node's %d agents first acknowledged again: %s (by node %s); by a closed-loop"
            + " producer: %s; first granted again: %s%n",
        hosted.size(), spread(acknowledged), servedOn, spread(closedLoop), spread(granted));
  }

  /** Per second from 5 s before the fault: acknowledged publishes and failures by kind. */
  private static void producers(List<Event> history, Set<String> hosted, long at) {
    Map<Long, int[]> perSecond = new TreeMap<>();
    Map<String, Integer> failuresHosted = new TreeMap<>();
    Map<String, Integer> failuresOthers = new TreeMap<>();
    long pressureLongest = 0;
    for (Event e : history) {
      if (!(e instanceof Published p)) {
        continue;
      }
      long second = Math.floorDiv(p.endMs() - at, 1000);
      if (second < -5 || second > 25) {
        continue;
      }
      int[] counts = perSecond.computeIfAbsent(second, s -> new int[3]);
      if (p.outcome() == Outcome.OK) {
        counts[0]++;
      } else {
        counts[hosted.contains(p.agentId()) ? 1 : 2]++;
        (hosted.contains(p.agentId()) ? failuresHosted : failuresOthers)
            .merge(
                p.detail() + (p.key().startsWith("load-") ? " (closed-loop)" : ""),
                1,
                Integer::sum);
      }
      if (p.key().startsWith("load-") && second >= 0) {
        pressureLongest = Math.max(pressureLongest, p.endMs() - p.startMs());
      }
    }
    StringBuilder out = new StringBuilder("  per second (acknowledged/failed, node's/others'):");
    perSecond.forEach((s, c) -> out.append(String.format(" %d:%d/%d/%d", s, c[0], c[1], c[2])));
    System.out.println(out);
    System.out.printf(
        "  failures from -5 s to 25 s: the node's agents %s; others %s; longest closed-loop publish"
            + " after the fault %d ms%n",
        failuresHosted, failuresOthers, pressureLongest);
  }

  private static String spread(List<Double> values) {
    if (values.isEmpty()) {
      return "none";
    }
    List<Double> sorted = values.stream().sorted().toList();
    return String.format(
        "first %.1f, median %.1f, last %.1f (%d)",
        sorted.get(0), sorted.get(sorted.size() / 2), sorted.get(sorted.size() - 1), sorted.size());
  }

  /** The epoch milliseconds a log line starts with, or -1. */
  private static long time(String line) {
    int space = line.indexOf(' ');
    if (space < 20) {
      return -1;
    }
    try {
      return OffsetDateTime.parse(line.substring(0, space)).toInstant().toEpochMilli();
    } catch (RuntimeException e) {
      return -1;
    }
  }
}
