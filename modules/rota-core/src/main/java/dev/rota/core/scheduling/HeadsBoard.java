package dev.rota.core.scheduling;

import dev.rota.core.model.ActivationKind;
import dev.rota.core.model.RunnerMode;
import dev.rota.core.tenant.Tenants;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.TreeMap;
import java.util.function.Predicate;

/**
 * The assignment rule, applied by a dispatcher to its picture of every partition's best agents
 * without asking any coordinator (decision 26). The rule: inbox first (most unread, then oldest
 * unread, then priority; a notification older than {@code inboxMaxWait} jumps the line), then due
 * schedules (earliest fire first, not held back by {@code minActivationInterval}), stalest last
 * (never activated first, then oldest {@code lastActivatedAt}, skipping agents within their {@code
 * minActivationInterval}).
 *
 * <p>Each partition's coordinator publishes, for every capability group, the first {@code k} rows
 * of each ordered view of its {@link SchedulingIndex} ({@link SchedulingIndex#heads}). The best
 * agent for a request over all partitions is the best of those heads, because the best of a union
 * is the best of the bests. A dispatcher serving several requests before a partition publishes
 * again passes a predicate that hides the heads it has already claimed or seen denied; when that
 * hides all {@code k} rows of a view that has more, the partition's next agent is unknown, and the
 * board can only answer if its choice ranks before the last hidden row (every unknown row ranks
 * after it). Otherwise it answers {@link Await}: wait for that partition's next publication rather
 * than hand out a worse agent.
 *
 * <p>Agents of different tenants sit in different groups. When more than one tenant has work of the
 * kind the rule reaches (inbox, due schedules, staleness), a {@link TenantChoice} picks the tenant
 * first ({@link dev.rota.core.tenant.TenantShares}: the one furthest below its weighted share of
 * runner time), and the rule above is applied among that tenant's heads only.
 *
 * <p>Not thread-safe; one actor owns it.
 */
public final class HeadsBoard {

  /** The agent chosen for a runner, and why. */
  public record Pick(AgentSchedule agent, ActivationKind kind) {}

  /** One published row and the version it was published at (the entity's sequence number). */
  public record Head(AgentSchedule agent, long version) {}

  /**
   * One group's heads in one partition: the agents of one tenant that require one capability set.
   *
   * @param tenant the tenant of every agent of the group
   * @param inbox the first rows of the inbox order
   * @param oldestUnread the first rows of the oldest-unread order (the same agents as the inbox
   *     view, for the max-wait jump)
   * @param inboxComplete the inbox views hold every eligible inbox agent of the group
   * @param stale the first rows of the staleness order
   * @param staleComplete the staleness view holds every stale-eligible agent of the group
   * @param scheduled the first rows of the scheduled order (agents whose schedule is due)
   * @param scheduledComplete the scheduled view holds every due agent of the group
   */
  public record GroupHeads(
      String tenant,
      Set<String> capabilities,
      List<Head> inbox,
      List<Head> oldestUnread,
      boolean inboxComplete,
      List<Head> stale,
      boolean staleComplete,
      List<Head> scheduled,
      boolean scheduledComplete) {
    public GroupHeads {
      tenant = tenant == null ? Tenants.DEFAULT : tenant;
      capabilities = Set.copyOf(capabilities);
      inbox = List.copyOf(inbox);
      oldestUnread = List.copyOf(oldestUnread);
      stale = List.copyOf(stale);
      scheduled = List.copyOf(scheduled);
    }

    /** Heads of a group of the default tenant. */
    public GroupHeads(
        Set<String> capabilities,
        List<Head> inbox,
        List<Head> oldestUnread,
        boolean inboxComplete,
        List<Head> stale,
        boolean staleComplete,
        List<Head> scheduled,
        boolean scheduledComplete) {
      this(
          Tenants.DEFAULT,
          capabilities,
          inbox,
          oldestUnread,
          inboxComplete,
          stale,
          staleComplete,
          scheduled,
          scheduledComplete);
    }

    /** Heads of a group of the default tenant without due schedules. */
    public GroupHeads(
        Set<String> capabilities,
        List<Head> inbox,
        List<Head> oldestUnread,
        boolean inboxComplete,
        List<Head> stale,
        boolean staleComplete) {
      this(
          Tenants.DEFAULT,
          capabilities,
          inbox,
          oldestUnread,
          inboxComplete,
          stale,
          staleComplete,
          List.of(),
          true);
    }
  }

  /** What the board answers a request. */
  public sealed interface Decision {}

  /** Claim this agent of this partition: it is the best for the request. */
  public record Take(Pick pick, int partition, long version) implements Decision {}

  /** The answer depends on agents of this partition the board does not know yet. */
  public record Await(int partition) implements Decision {}

  /** Nothing the board knows of fits the request. */
  public record None() implements Decision {}

  private static final None NONE = new None();

  private final Duration inboxMaxWait;
  private final Map<Integer, List<GroupHeads>> partitions = new TreeMap<>();

  public HeadsBoard(Duration inboxMaxWait) {
    this.inboxMaxWait = Objects.requireNonNull(inboxMaxWait, "inboxMaxWait");
  }

  /** Replaces what the board knows of {@code partition}. */
  public void put(int partition, List<GroupHeads> groups) {
    partitions.put(partition, List.copyOf(groups));
  }

  public boolean knows(int partition) {
    return partitions.containsKey(partition);
  }

  public List<GroupHeads> of(int partition) {
    return partitions.getOrDefault(partition, List.of());
  }

  /**
   * Chooses, among tenants that have work for a request, the one to serve: the rule across tenants
   * ({@link dev.rota.core.tenant.TenantShares}). Called only when more than one tenant has work of
   * the same kind.
   */
  @FunctionalInterface
  public interface TenantChoice {
    /** One of {@code tenants} (distinct, at least two), which all have work of {@code kind}. */
    String choose(ActivationKind kind, List<String> tenants);
  }

  /**
   * The best agent for a runner in {@code mode} offering {@code offered} at {@code now}, among the
   * heads {@code usable} accepts: inbox work first for the modes that take it, then for the modes
   * that take staleness work a due schedule, then staleness work. Every tenant's agents compete as
   * one, as they do when there is only the default tenant.
   */
  public Decision decide(
      RunnerMode mode, Set<String> offered, Instant now, Predicate<Head> usable) {
    return decide(mode, offered, now, usable, tenant -> true, null);
  }

  /**
   * {@link #decide(RunnerMode, Set, Instant, Predicate)} over the tenants {@code serves} accepts,
   * with the rule across tenants: within each kind of work (inbox, then due schedules, then
   * staleness), when agents of more than one tenant have work of that kind, {@code choice} picks
   * the tenant, and the rule is applied among that tenant's agents only. With one tenant (or a null
   * {@code choice}) the answer is exactly the single-tenant rule's.
   */
  public Decision decide(
      RunnerMode mode,
      Set<String> offered,
      Instant now,
      Predicate<Head> usable,
      Predicate<String> serves,
      TenantChoice choice) {
    if (mode.takesInbox()) {
      Decision inbox = decideInbox(offered, now, usable, serves, choice);
      if (inbox != NONE) {
        return inbox;
      }
    }
    if (mode.takesStaleness()) {
      // A due schedule ranks after the inbox and before staleness (decision 33).
      Decision scheduled =
          decideIn(
              oneTenant(
                  cursors(
                      offered,
                      usable,
                      serves,
                      GroupHeads::scheduled,
                      GroupHeads::scheduledComplete),
                  choice,
                  ActivationKind.SCHEDULED),
              ScheduleOrder.SCHEDULED,
              ActivationKind.SCHEDULED);
      if (scheduled != NONE) {
        return scheduled;
      }
      return decideIn(
          oneTenant(
              cursors(offered, usable, serves, GroupHeads::stale, GroupHeads::staleComplete),
              choice,
              ActivationKind.EXPLORATION),
          ScheduleOrder.STALENESS,
          ActivationKind.EXPLORATION);
    }
    return NONE;
  }

  /**
   * The cursors of the one tenant {@code choice} picks among those that have any, or all of them
   * when they are of one tenant. A tenant whose shown rows are all hidden but that may have more
   * counts as having work: it may be the one to serve, and then the answer waits for its partition.
   */
  private static List<Cursor> oneTenant(
      List<Cursor> cursors, TenantChoice choice, ActivationKind kind) {
    if (choice == null || cursors.size() < 2) {
      return cursors;
    }
    String first = cursors.get(0).tenant();
    List<String> tenants = null;
    for (int i = 1; i < cursors.size(); i++) {
      String t = cursors.get(i).tenant();
      if (!t.equals(first) && (tenants == null || !tenants.contains(t))) {
        if (tenants == null) {
          tenants = new ArrayList<>(4);
          tenants.add(first);
        }
        tenants.add(t);
      }
    }
    if (tenants == null) {
      return cursors;
    }
    String chosen = choice.choose(kind, tenants);
    List<Cursor> of = new ArrayList<>(cursors.size());
    for (Cursor c : cursors) {
      if (c.tenant().equals(chosen)) {
        of.add(c);
      }
    }
    return of;
  }

  /** A view's first usable row, or the last row of a view that has more rows than it showed. */
  private record Cursor(int partition, String tenant, Head first, Head lastHidden) {}

  private List<Cursor> cursors(
      Set<String> offered,
      Predicate<Head> usable,
      Predicate<String> serves,
      java.util.function.Function<GroupHeads, List<Head>> view,
      Predicate<GroupHeads> complete) {
    List<Cursor> cursors = new ArrayList<>();
    for (Map.Entry<Integer, List<GroupHeads>> e : partitions.entrySet()) {
      for (GroupHeads group : e.getValue()) {
        if (!offered.containsAll(group.capabilities()) || !serves.test(group.tenant())) {
          continue;
        }
        List<Head> rows = view.apply(group);
        Head first = null;
        for (Head head : rows) {
          if (usable.test(head)) {
            first = head;
            break;
          }
        }
        if (first != null) {
          cursors.add(new Cursor(e.getKey(), group.tenant(), first, null));
        } else if (!complete.test(group) && !rows.isEmpty()) {
          cursors.add(new Cursor(e.getKey(), group.tenant(), null, rows.get(rows.size() - 1)));
        }
      }
    }
    return cursors;
  }

  private Decision decideInbox(
      Set<String> offered,
      Instant now,
      Predicate<Head> usable,
      Predicate<String> serves,
      TenantChoice choice) {
    List<Cursor> inbox =
        cursors(offered, usable, serves, GroupHeads::inbox, GroupHeads::inboxComplete);
    List<Cursor> chosen = oneTenant(inbox, choice, ActivationKind.INBOX);
    List<Cursor> oldest =
        cursors(
            offered,
            usable,
            chosen == inbox ? serves : tenantOf(chosen),
            GroupHeads::oldestUnread,
            GroupHeads::inboxComplete);
    inbox = chosen;
    // Within the chosen tenant, today's rule: a notification waiting too long jumps its tenant's
    // line, not the other tenants'.
    // The max-wait jump: the overall oldest unread goes first once it has waited too long.
    Cursor longest = best(oldest, ScheduleOrder.OLDEST_UNREAD);
    if (longest != null
        && ScheduleOrder.hasWaitedTooLong(longest.first().agent(), inboxMaxWait, now)) {
      Decision unknown = unknownBefore(oldest, longest.first(), ScheduleOrder.OLDEST_UNREAD);
      return unknown != null ? unknown : take(longest, ActivationKind.INBOX);
    }
    for (Cursor c : oldest) {
      // An unknown row has waited no longer than the hidden row it follows.
      if (c.first() == null
          && ScheduleOrder.hasWaitedTooLong(c.lastHidden().agent(), inboxMaxWait, now)) {
        return new Await(c.partition());
      }
    }
    Cursor best = best(inbox, ScheduleOrder.INBOX);
    if (best != null) {
      Decision unknown = unknownBefore(inbox, best.first(), ScheduleOrder.INBOX);
      return unknown != null ? unknown : take(best, ActivationKind.INBOX);
    }
    return awaitAny(inbox);
  }

  /** Only the tenant of {@code chosen} (one tenant's non-empty cursors). */
  private static Predicate<String> tenantOf(List<Cursor> chosen) {
    String tenant = chosen.get(0).tenant();
    return tenant::equals;
  }

  /** The best of one view over all partitions, by {@code order}. */
  private static Decision decideIn(
      List<Cursor> cursors, Comparator<AgentSchedule> order, ActivationKind kind) {
    Cursor best = best(cursors, order);
    if (best != null) {
      Decision unknown = unknownBefore(cursors, best.first(), order);
      return unknown != null ? unknown : take(best, kind);
    }
    return awaitAny(cursors);
  }

  private static Cursor best(List<Cursor> cursors, Comparator<AgentSchedule> order) {
    Cursor best = null;
    for (Cursor c : cursors) {
      if (c.first() != null
          && (best == null || order.compare(c.first().agent(), best.first().agent()) < 0)) {
        best = c;
      }
    }
    return best;
  }

  /**
   * An {@link Await} for the first view whose unknown rows might rank before {@code chosen}: those
   * rank after its last hidden row, so {@code chosen} is safe only if it ranks before that row.
   */
  private static Decision unknownBefore(
      List<Cursor> cursors, Head chosen, Comparator<AgentSchedule> order) {
    for (Cursor c : cursors) {
      if (c.first() == null && order.compare(chosen.agent(), c.lastHidden().agent()) > 0) {
        return new Await(c.partition());
      }
    }
    return null;
  }

  private static Decision awaitAny(List<Cursor> cursors) {
    for (Cursor c : cursors) {
      if (c.first() == null) {
        return new Await(c.partition());
      }
    }
    return NONE;
  }

  private static Take take(Cursor c, ActivationKind kind) {
    return new Take(new Pick(c.first().agent(), kind), c.partition(), c.first().version());
  }
}
