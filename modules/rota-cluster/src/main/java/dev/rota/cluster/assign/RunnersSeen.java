package dev.rota.cluster.assign;

import dev.rota.cluster.assign.Dispatcher.RunnerSeen;
import dev.rota.cluster.assign.WorkProtocol.RequestWork;
import dev.rota.core.model.ClaimSpec;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The runners a dispatcher has seen asking for work, for the cluster's runner listings; least
 * recently seen first.
 */
final class RunnersSeen {
  /**
   * The most runners a dispatcher remembers (docs/configuration.md, limits), so that clients
   * inventing a runner id per request cannot grow a node's memory without bound.
   */
  static final int MAX_REMEMBERED = 10_000;

  private final Map<String, RunnerSeen> runners =
      new LinkedHashMap<>() {
        @Override
        protected boolean removeEldestEntry(Map.Entry<String, RunnerSeen> eldest) {
          return size() > MAX_REMEMBERED;
        }
      };

  void seen(RequestWork request, Instant now) {
    ClaimSpec claim = request.spec();
    runners.remove(claim.runnerId());
    runners.put(
        claim.runnerId(),
        new RunnerSeen(
            claim.runnerId(), request.node(), claim.mode().wireName(), claim.capabilities(), now));
  }

  /** Forgets runners that stopped asking before {@code cutoff}. */
  void forget(Instant cutoff) {
    runners.values().removeIf(r -> r.lastSeenAt().isBefore(cutoff));
  }

  List<RunnerSeen> list() {
    return List.copyOf(runners.values());
  }
}
