package dev.rota.cluster.assign;

import dev.rota.core.model.RunnerMode;
import dev.rota.core.scheduling.HeadsBoard;
import dev.rota.core.tenant.TenantShares;
import dev.rota.core.tenant.TenantTable;
import java.time.Duration;
import java.time.Instant;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;
import java.util.function.Predicate;
import org.apache.pekko.actor.typed.ActorRef;

/**
 * A dispatcher's picture of every partition: the newest heads each coordinator published ({@link
 * HeadsBoard}), which partitions it asked to publish again, and whether it has heard from all of
 * them since it started.
 */
final class PartitionHeads {
  /** A version of a partition's publication, to ignore one older than what the board holds. */
  private record Version(long epoch, long seq) {
    boolean isAfter(Version other) {
      return epoch != other.epoch ? epoch > other.epoch : seq > other.seq;
    }
  }

  private final Coordinators coordinators;
  private final HeadsBoard board;
  private final TenantShares shares;
  private final Map<Integer, Version> versions = new HashMap<>();

  /** Partitions asked for their heads and not heard from since. */
  private final Set<Integer> refreshing = new HashSet<>();

  private final long startedNanos = System.nanoTime();
  private final Duration grace;
  private boolean complete;

  /** {@code grace}: how long to wait for every partition before ranking from the ones heard. */
  PartitionHeads(
      Coordinators coordinators, Duration inboxMaxWait, Duration grace, TenantTable tenants) {
    this.coordinators = coordinators;
    this.board = new HeadsBoard(inboxMaxWait);
    this.shares = new TenantShares(tenants);
    this.grace = grace;
  }

  /** Puts a publication on the board; false when it is not newer than the one there. */
  boolean accept(Dispatcher.Heads heads) {
    refreshing.remove(heads.partition());
    Version version = new Version(heads.epoch(), heads.seq());
    Version known = versions.get(heads.partition());
    if (known != null && !version.isAfter(known)) {
      return false; // an answer to a refresh when nothing changed
    }
    versions.put(heads.partition(), version);
    board.put(heads.partition(), heads.groups());
    shares.accept(
        heads.partition(),
        heads.epoch(),
        heads.atMillis(),
        heads.loads(),
        System.currentTimeMillis());
    return true;
  }

  /**
   * The rule for a request over the board; {@code serves} null for a request that may serve every
   * tenant. Tenants are chosen by their share of runner time ({@link TenantShares}).
   */
  HeadsBoard.Decision decide(
      RunnerMode mode,
      Set<String> capabilities,
      Instant now,
      Predicate<HeadsBoard.Head> usable,
      Predicate<String> serves) {
    long nowMillis = now.toEpochMilli();
    return board.decide(
        mode,
        capabilities,
        now,
        usable,
        serves == null ? ALL : serves,
        (kind, tenants) -> shares.choose(tenants, nowMillis));
  }

  private static final Predicate<String> ALL = tenant -> true;

  /** This dispatcher was granted a lease for an agent of {@code tenant} in {@code partition}. */
  void granted(int partition, String tenant) {
    shares.granted(partition, tenant, System.currentTimeMillis());
  }

  TenantShares shares() {
    return shares;
  }

  /**
   * Every tenant's share of runner time over about the last minute ({@link
   * TenantShares#lastMinute}), the tenants with notifications waiting on the board counted in
   * contention.
   */
  TenantShares.Window shares(long nowMillis) {
    Set<String> waiting = new HashSet<>();
    for (int partition : versions.keySet()) {
      for (HeadsBoard.GroupHeads group : board.of(partition)) {
        if (!group.inbox().isEmpty()) {
          waiting.add(group.tenant());
        }
      }
    }
    return shares.lastMinute(nowMillis, waiting);
  }

  /** Asks the partition's coordinator to publish again, unless it was asked already. */
  void refresh(int partition, ActorRef<Dispatcher.Command> dispatcher) {
    if (refreshing.add(partition)) {
      coordinators
          .of(partition)
          .ifPresentOrElse(
              c -> c.tell(new Coordinator.Refresh(dispatcher)), () -> refreshing.remove(partition));
    }
  }

  /** True once every partition has published, or the start-up grace has passed regardless. */
  boolean complete() {
    if (!complete) {
      boolean all = true;
      for (int partition = 0; partition < coordinators.partitions() && all; partition++) {
        all = board.knows(partition);
      }
      complete = all || System.nanoTime() - startedNanos > grace.toNanos();
    }
    return complete;
  }
}
