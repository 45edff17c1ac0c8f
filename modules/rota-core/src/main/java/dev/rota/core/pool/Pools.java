package dev.rota.core.pool;

import dev.rota.core.model.RunnerMode;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * Which pool a runner belongs to and which pool each group of agents counts in, so that every agent
 * and every runner is counted once.
 *
 * <ul>
 *   <li>An in-cluster runner belongs to the pool of its in-cluster pool's name; any other runner to
 *       the first pool of its mode whose capability set is its own (or {@code *}); a runner no pool
 *       matches counts in the first catch-all ({@code *}) pool, if any.
 *   <li>A group's inbox work counts in a notification pool before a hybrid one, its staleness work
 *       in an exploration pool before a hybrid one sized for staleness; among those, the narrowest
 *       pool whose runners offer everything the group requires (fewest capabilities, catch-all
 *       last, then configuration order). Work no pool can take counts nowhere.
 * </ul>
 */
public final class Pools {
  private Pools() {}

  /** The pool a runner counts in, if any. */
  public static Optional<PoolSpec> poolOfRunner(
      List<PoolSpec> specs, String inClusterPool, RunnerMode mode, Set<String> offered) {
    if (inClusterPool != null) {
      for (PoolSpec spec : specs) {
        if (spec.name().equals(inClusterPool)) {
          return Optional.of(spec);
        }
      }
    }
    for (PoolSpec spec : specs) {
      if (spec.mode() == mode && (spec.anyCapabilities() || spec.capabilities().equals(offered))) {
        return Optional.of(spec);
      }
    }
    return specs.stream().filter(PoolSpec::anyCapabilities).findFirst();
  }

  /**
   * Each pool's load: its share of {@code groups} and its runners from {@code runners} (by pool
   * name; a pool without an entry has none). Keys in the order of {@code specs}.
   */
  public static Map<String, PoolLoad> loads(
      List<PoolSpec> specs, List<BacklogGroup> groups, Map<String, RunnerCount> runners) {
    Map<String, PoolLoad> loads = new LinkedHashMap<>();
    for (PoolSpec spec : specs) {
      loads.put(
          spec.name(),
          PoolLoad.IDLE.withRunners(runners.getOrDefault(spec.name(), RunnerCount.NONE)));
    }
    for (BacklogGroup group : groups) {
      if (group.withInbox() > 0) {
        inboxPool(specs, group.capabilities())
            .ifPresent(p -> loads.computeIfPresent(p.name(), (n, l) -> l.plusInbox(group)));
      }
      stalenessPool(specs, group.capabilities())
          .ifPresent(p -> loads.computeIfPresent(p.name(), (n, l) -> l.plusStaleness(group)));
    }
    return loads;
  }

  /** The pool whose runners count the inbox work of agents requiring {@code required}. */
  public static Optional<PoolSpec> inboxPool(List<PoolSpec> specs, Set<String> required) {
    return specs.stream()
        .filter(s -> s.mode().takesInbox() && s.offersAll(required))
        .min(
            Comparator.comparing((PoolSpec s) -> s.mode() != RunnerMode.NOTIFICATION)
                .thenComparing(narrowest(specs)));
  }

  /** The pool whose runners count the staleness work of agents requiring {@code required}. */
  public static Optional<PoolSpec> stalenessPool(List<PoolSpec> specs, Set<String> required) {
    return specs.stream()
        .filter(s -> s.mode().takesStaleness() && s.offersAll(required))
        .min(
            Comparator.comparing((PoolSpec s) -> s.mode() != RunnerMode.EXPLORATION)
                .thenComparing(s -> !s.sizedForStaleness())
                .thenComparing(narrowest(specs)));
  }

  /**
   * Spreads {@code total} runners over {@code nodes} as evenly as their bounds allow: each node
   * gets at least its floor and at most its cap (both optional, learned from what the node accepted
   * before), the rest one by one to the node with fewest, in the given order on ties. Runners no
   * node can take are left out: they are the in-cluster pools' shortfall.
   */
  public static Map<String, Integer> spread(
      int total, List<String> nodes, Map<String, Integer> floors, Map<String, Integer> caps) {
    Map<String, Integer> shares = new LinkedHashMap<>();
    int left = total;
    for (String node : nodes) {
      int floor = floors.getOrDefault(node, 0);
      shares.put(node, floor);
      left -= floor;
    }
    while (left > 0) {
      String next = null;
      for (String node : nodes) {
        int share = shares.get(node);
        if (share < caps.getOrDefault(node, Integer.MAX_VALUE)
            && (next == null || share < shares.get(next))) {
          next = node;
        }
      }
      if (next == null) {
        break;
      }
      shares.merge(next, 1, Integer::sum);
      left--;
    }
    return shares;
  }

  private static Comparator<PoolSpec> narrowest(List<PoolSpec> specs) {
    return Comparator.comparing(PoolSpec::anyCapabilities)
        .thenComparingInt(s -> s.capabilities().size())
        .thenComparingInt(specs::indexOf);
  }
}
