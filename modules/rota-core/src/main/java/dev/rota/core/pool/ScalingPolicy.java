package dev.rota.core.pool;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Objects;

/**
 * How many runners a pool should have, from its load: the pool scaler's rule, pure so that it is
 * tested without a cluster.
 *
 * <p><b>Need.</b> Inbox work (notification and hybrid pools): the runners busy with inbox work
 * divided by the target utilisation (the steady load, with head-room), plus {@code waiting · T /
 * targetInboxWait} to drain what waits within the target; until T is measured, one runner per
 * waiting agent. When the oldest unread notification has waited past the target, at least one
 * runner more than now. Staleness work (exploration pools, hybrid pools with a target staleness):
 * T·Σ 1/max(m, S) ({@link Capacity}). Exploration runners are busy by design (there is always a
 * stalest agent), so their utilisation says nothing and is not used.
 *
 * <p><b>Damping.</b> Up at once: a burst reaches {@code max} at the next round. Down only after
 * {@code scaleDownDelay} without a change, and only to the highest need seen during that delay plus
 * the hysteresis as head-room ({@code ceil(highest / (1 − hysteresis))}): noise around a value
 * never moves the count down and straight back up.
 */
public final class ScalingPolicy {

  /**
   * @param scaleDownDelay how long the need must stay low, and the count unchanged, before the pool
   *     shrinks (the cool-down)
   * @param hysteresis how far below the count, as a share of it, the need must stay to shrink
   */
  public record Settings(Duration scaleDownDelay, double hysteresis) {
    public Settings {
      Objects.requireNonNull(scaleDownDelay, "scaleDownDelay");
      if (scaleDownDelay.isNegative()) {
        throw new IllegalArgumentException("scale-down-delay must not be negative");
      }
      if (!(hysteresis >= 0 && hysteresis < 1)) {
        throw new IllegalArgumentException("hysteresis must be in [0, 1)");
      }
    }
  }

  /** A need computed at one moment. */
  public record Sample(Instant at, double need) {}

  /**
   * What the policy remembers of a pool between rounds.
   *
   * @param changedAt when {@code desired} last changed (or was first set)
   * @param recent the needs of the last {@code scaleDownDelay}, oldest first, plus the one just
   *     before it
   */
  public record State(int desired, Instant changedAt, List<Sample> recent) {
    public State {
      recent = List.copyOf(recent);
    }
  }

  /**
   * @param need the runners' worth of work, unrounded
   * @param reason one human sentence: what the count follows and why it moved or held
   */
  public record Decision(int desired, double need, String reason, State state) {}

  private final Settings settings;

  public ScalingPolicy(Settings settings) {
    this.settings = Objects.requireNonNull(settings, "settings");
  }

  /**
   * One round for one pool.
   *
   * @param meanActivation T, the measured mean activation; zero while unknown
   * @param previous the state the last round returned; null for the first round (a new scaler, or
   *     one that took over after a failover), which starts from {@code currentSize}
   * @param currentSize the runners the pool has now (what its in-cluster pools are held at, or its
   *     active runners), so that a new scaler neither drops nor jumps what a previous one set
   */
  public Decision decide(
      PoolSpec spec,
      PoolLoad load,
      Duration meanActivation,
      State previous,
      int currentSize,
      Instant now) {
    int current = previous == null ? clamp(spec, currentSize) : previous.desired();
    Need need = need(spec, load, meanActivation, current, now);
    List<Sample> recent = window(previous, new Sample(now, need.runners()), now);
    int wanted = clamp(spec, ceil(need.runners()));
    Instant changedAt = previous == null ? now : previous.changedAt();

    if (previous == null) {
      return new Decision(
          current,
          need.runners(),
          need.why() + "; starting from the " + current + " runners the pool has",
          new State(current, now, recent));
    }
    if (current != clamp(spec, current)) {
      int bounded = clamp(spec, current);
      return new Decision(
          bounded,
          need.runners(),
          need.why() + "; held within " + spec.min() + ".." + spec.max(),
          new State(bounded, now, recent));
    }
    if (wanted > current) {
      return new Decision(
          wanted,
          need.runners(),
          need.why() + "; up from " + current + capped(spec, need),
          new State(wanted, now, recent));
    }
    double highest =
        recent.stream()
            .filter(s -> inWindow(s, now))
            .mapToDouble(Sample::need)
            .max()
            .orElse(need.runners());
    // Down to the most needed lately plus the hysteresis as head-room, so a need that wanders
    // around a value never moves the count down and straight back up.
    int down = clamp(spec, ceil(highest / (1 - settings.hysteresis())));
    if (down >= current) {
      return new Decision(
          current,
          need.runners(),
          String.format(
              Locale.ROOT,
              "%s; holding %d (most needed in the last %s: %.1f)",
              need.why(),
              current,
              seconds(settings.scaleDownDelay()),
              highest),
          new State(current, changedAt, recent));
    }
    boolean steady = !changedAt.isAfter(now.minus(settings.scaleDownDelay()));
    boolean coveredDelay = !recent.get(0).at().isAfter(now.minus(settings.scaleDownDelay()));
    if (!steady || !coveredDelay) {
      return new Decision(
          current,
          need.runners(),
          need.why()
              + "; holding "
              + current
              + " for the scale-down delay ("
              + seconds(settings.scaleDownDelay())
              + ")",
          new State(current, changedAt, recent));
    }
    return new Decision(
        down,
        need.runners(),
        need.why()
            + "; down from "
            + current
            + ", the most needed in the last "
            + seconds(settings.scaleDownDelay()),
        new State(down, now, recent));
  }

  /**
   * A round that keeps the count as it is, e.g. while the system is paused (claims are answered
   * {@code paused}, so a growing inbox says nothing about runners). The scale-down delay does not
   * run meanwhile any differently: the last change stays the last change.
   */
  public Decision hold(PoolSpec spec, State previous, int currentSize, Instant now, String why) {
    int current = clamp(spec, previous == null ? currentSize : previous.desired());
    State state =
        previous == null
            ? new State(current, now, List.of(new Sample(now, 0)))
            : new State(current, previous.changedAt(), previous.recent());
    return new Decision(current, 0, why + "; holding " + current, state);
  }

  /** The runners' worth of work and a sentence saying where it comes from. */
  private record Need(double runners, String why) {}

  private Need need(
      PoolSpec spec, PoolLoad load, Duration meanActivation, int current, Instant now) {
    double total = 0;
    List<String> parts = new ArrayList<>();
    boolean measured = Capacity.known(meanActivation);
    if (spec.mode().takesInbox()) {
      RunnerCount r = load.runners();
      double steady = r.busyInbox() / spec.targetUtilisation();
      double drain =
          measured
              ? load.waiting()
                  * Capacity.seconds(meanActivation)
                  / Capacity.seconds(spec.targetInboxWait())
              : load.waiting();
      double inbox = steady + drain;
      String text =
          String.format(
              Locale.ROOT,
              "inbox %.1f (%d busy / %.2f utilisation + %d waiting",
              inbox,
              r.busyInbox(),
              spec.targetUtilisation(),
              load.waiting());
      text +=
          measured
              ? String.format(
                  Locale.ROOT,
                  " x T %.2fs / %s wait)",
                  Capacity.seconds(meanActivation),
                  seconds(spec.targetInboxWait()))
              : ", T not measured yet)";
      Duration waited = load.oldestUnreadAge(now);
      if (load.waiting() > 0 && waited.compareTo(spec.targetInboxWait()) > 0 && inbox <= current) {
        inbox = current + 1;
        text += ", oldest unread waited " + seconds(waited) + ": one more";
      }
      total += inbox;
      parts.add(text);
    }
    if (spec.sizedForStaleness()) {
      double stale;
      String text;
      if (measured) {
        stale = Capacity.load(load.agentsByMinInterval(), meanActivation, spec.targetStaleness());
        text =
            String.format(
                Locale.ROOT,
                "staleness %.1f (N·T/S: %d agents x T %.2fs / %s)",
                stale,
                load.agents(),
                Capacity.seconds(meanActivation),
                seconds(spec.targetStaleness()));
      } else {
        stale = load.agents() > 0 ? 1 : 0;
        text = "staleness " + (int) stale + " (" + load.agents() + " agents, T not measured yet)";
      }
      total += stale;
      parts.add(text);
    }
    if (parts.isEmpty()) {
      parts.add("no work this pool is sized for");
    }
    return new Need(total, String.join(" + ", parts));
  }

  private List<Sample> window(State previous, Sample latest, Instant now) {
    List<Sample> samples = new ArrayList<>(previous == null ? List.of() : previous.recent());
    samples.add(latest);
    // Keep the samples inside the delay and the last one before it, which shows the window covered.
    while (samples.size() > 1 && !inWindow(samples.get(1), now)) {
      samples.remove(0);
    }
    return samples;
  }

  private boolean inWindow(Sample sample, Instant now) {
    return sample.at().isAfter(now.minus(settings.scaleDownDelay()))
        || settings.scaleDownDelay().isZero() && sample.at().equals(now);
  }

  private static String capped(PoolSpec spec, Need need) {
    return ceil(need.runners()) > spec.max() ? " (capped at max " + spec.max() + ")" : "";
  }

  private static int clamp(PoolSpec spec, long count) {
    return (int) Math.max(spec.min(), Math.min(spec.max(), count));
  }

  private static long ceil(double runners) {
    return (long) Math.ceil(runners - 1e-9);
  }

  private static String seconds(Duration d) {
    long ms = d.toMillis();
    return ms % 1000 == 0 ? (ms / 1000) + "s" : String.format(Locale.ROOT, "%.1fs", ms / 1000.0);
  }
}
