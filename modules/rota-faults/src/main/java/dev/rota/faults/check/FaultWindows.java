package dev.rota.faults.check;

import dev.rota.faults.check.Verdict.FaultWindow;
import dev.rota.faults.history.Event.Fault;
import dev.rota.faults.history.Event.Outcome;
import dev.rota.faults.history.Event.Placement;
import dev.rota.faults.history.Event.Published;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * How long the agents went unserved after one injected fault, from the publishes alone: the window
 * of the agents the fault took away, and the split by host (the faulty node's agents served again,
 * every other agent's longest wait). Part of {@link HistoryChecker}.
 */
final class FaultWindows {
  /** The keys of the loaded variant's closed-loop producers ({@code WorkloadPressure}). */
  static final String CLOSED_LOOP_PREFIX = "load-";

  private FaultWindows() {}

  /** Faults whose node is gone (for its clients' agents) at the moment they are injected. */
  private static boolean takesNodeAtOnce(String kind) {
    return kind.equals("kill-9")
        || kind.startsWith("sigstop")
        || kind.startsWith("partition")
        || kind.equals("clock-skew");
  }

  /** Acknowledged, or rejected while a turn ran: either way the agent's host answered. */
  private static boolean answered(Published p) {
    return p.outcome() == Outcome.OK || p.outcome() == Outcome.REJECTED;
  }

  static FaultWindow of(Fault fault, long until, List<Published> all, List<Placement> placements) {
    // A rejected publish (409 while a turn ran) is an answer: the agent was served (its host
    // answered), nothing failed, nothing was acknowledged; a key's wait for its acknowledgement
    // starts again after its last rejection.
    Map<String, Long> lastRejected = new HashMap<>();
    for (Published p : all) {
      if (p.outcome() == Outcome.REJECTED) {
        lastRejected.merge(p.key(), p.endMs(), Math::max);
      }
    }
    List<Published> published = all.stream().filter(p -> p.outcome() != Outcome.REJECTED).toList();
    Map<String, List<Published>> byAgent = new TreeMap<>();
    for (Published p : all) {
      if (p.startMs() >= fault.atMs() && p.startMs() < until) {
        byAgent.computeIfAbsent(p.agentId(), a -> new ArrayList<>()).add(p);
      }
    }
    int affected = 0;
    int laterFailures = 0;
    int never = 0;
    long max = 0;
    long maxOutage = 0;
    String worst = null;
    Set<String> affectedAgents = new HashSet<>();
    for (Map.Entry<String, List<Published>> entry : byAgent.entrySet()) {
      List<Published> attempts = entry.getValue();
      attempts.sort(Comparator.comparingLong(Published::startMs));
      Published firstFailure = attempts.stream().filter(p -> !answered(p)).findFirst().orElse(null);
      if (firstFailure == null) {
        continue;
      }
      if (takesNodeAtOnce(fault.kind()) && answered(attempts.get(0))) {
        // Served after a kill or freeze before it first failed: not an agent the fault took away
        // (a request that timed out on a loaded machine, say); counted, not held to the bound.
        // Restarts move shards long after their marker, so there every failure counts.
        laterFailures++;
        continue;
      }
      affected++;
      affectedAgents.add(entry.getKey());
      Published served =
          attempts.stream()
              .filter(p -> answered(p) && p.startMs() > firstFailure.startMs())
              .findFirst()
              .orElse(null);
      long window = served == null ? Long.MAX_VALUE : served.endMs() - fault.atMs();
      long outage = served == null ? Long.MAX_VALUE : served.endMs() - firstFailure.startMs();
      maxOutage = Math.max(maxOutage, outage);
      if (served == null) {
        never++;
      }
      if (worst == null || window > max) {
        max = window;
        worst = entry.getKey();
      }
    }
    Set<String> hosted = hostedAgents(fault, placements, published, affectedAgents);
    long hostedWindow = 0;
    String worstHosted = null;
    for (String agent : hosted) {
      // An acknowledgement by the faulty node itself (a cut-off node's stray client, before it
      // downs itself) is not the agent served again elsewhere.
      long served =
          byAgent.getOrDefault(agent, List.of()).stream()
              .filter(p -> answered(p) && p.node() != fault.node())
              .mapToLong(p -> p.endMs() - fault.atMs())
              .min()
              .orElse(byAgent.containsKey(agent) ? Long.MAX_VALUE : 0);
      if (worstHosted == null || served > hostedWindow) {
        hostedWindow = served;
        worstHosted = agent;
      }
    }
    long othersWait = 0;
    String worstOther = null;
    Map<String, Long> firstAttempt = new HashMap<>();
    for (Published p : published) {
      if (p.startMs() >= lastRejected.getOrDefault(p.key(), Long.MIN_VALUE)) {
        firstAttempt.merge(p.key(), p.startMs(), Math::min);
      }
    }
    for (Published p : published) {
      if (p.outcome() != Outcome.OK || hosted.contains(p.agentId()) || p.endMs() < fault.atMs()) {
        continue;
      }
      if (p.key().startsWith(CLOSED_LOOP_PREFIX)) {
        // A closed-loop producer waits up to 10 s for an answer, so its request in flight to the
        // node when it froze waits that long whatever the cluster does; the others' wait is the
        // measuring producers' (1 s timeout), as in the suite's usual runs.
        continue;
      }
      long first = firstAttempt.getOrDefault(p.key(), p.startMs());
      if (first >= until) {
        continue;
      }
      long wait = p.endMs() - Math.max(first, fault.atMs());
      if (worstOther == null || wait > othersWait) {
        othersWait = wait;
        worstOther = p.agentId();
      }
    }
    return new FaultWindow(
        fault.kind(),
        fault.node(),
        fault.atMs(),
        affected,
        max,
        worst,
        never,
        maxOutage,
        laterFailures,
        hosted.size(),
        hostedWindow,
        worstHosted,
        othersWait,
        worstOther);
  }

  /**
   * The faulty node's agents: those its region hosted at the last placement before the fault (at
   * most a minute before), every agent for a fault of the database (node 0), else the agents the
   * fault took away.
   */
  private static Set<String> hostedAgents(
      Fault fault, List<Placement> placements, List<Published> published, Set<String> affected) {
    if (fault.node() == 0) {
      Set<String> all = new TreeSet<>();
      published.forEach(p -> all.add(p.agentId()));
      return all;
    }
    Placement last = null;
    for (Placement placement : placements) {
      if (placement.node() == fault.node()
          && placement.atMs() <= fault.atMs()
          && placement.atMs() > fault.atMs() - 60_000
          && (last == null || placement.atMs() > last.atMs())) {
        last = placement;
      }
    }
    return last == null ? affected : new TreeSet<>(last.agents());
  }
}
