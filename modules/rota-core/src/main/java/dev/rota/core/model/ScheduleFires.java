package dev.rota.core.model;

import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;

/**
 * The rules of an agent's schedules over its {@code nextFires}: per schedule name, its earliest
 * fire not yet served (due once past; absent when the cron never fires again). Pure functions, so
 * {@link AgentState} only stores the map.
 */
final class ScheduleFires {
  private ScheduleFires() {}

  /** The earliest fire not yet served over all schedules, null when none is coming. */
  static Instant earliest(Map<String, Instant> nextFires) {
    Instant earliest = null;
    for (Instant at : nextFires.values()) {
      if (earliest == null || at.isBefore(earliest)) {
        earliest = at;
      }
    }
    return earliest;
  }

  /**
   * The fire a scheduled turn granted at {@code now} serves: of the schedule whose unserved fire is
   * earliest (then by name), the latest fire at or before {@code now}, which covers the missed ones
   * before it. Empty when no fire is due.
   */
  static Optional<ScheduleFire> due(
      Map<String, Instant> nextFires, AgentConfig config, Instant now) {
    String name = null;
    Instant earliest = null;
    for (Map.Entry<String, Instant> e : nextFires.entrySet()) {
      Instant at = e.getValue();
      if (at.isAfter(now)) {
        continue;
      }
      int c = earliest == null ? -1 : at.compareTo(earliest);
      if (c < 0 || (c == 0 && e.getKey().compareTo(name) < 0)) {
        name = e.getKey();
        earliest = at;
      }
    }
    if (name == null) {
      return Optional.empty();
    }
    Instant latest = config.schedule(name).map(s -> s.latestFireAtOrBefore(now)).orElse(null);
    return Optional.of(
        new ScheduleFire(name, latest == null || latest.isBefore(earliest) ? earliest : latest));
  }

  /**
   * The unserved fires under {@code newConfig}: a schedule that fires as under {@code oldConfig}
   * (null when there was none) keeps its unserved fire, a new or changed one fires first after
   * {@code at}.
   */
  static Map<String, Instant> configured(
      AgentConfig newConfig, AgentConfig oldConfig, Map<String, Instant> oldFires, Instant at) {
    Map<String, Instant> fires = new LinkedHashMap<>();
    for (Schedule s : newConfig.schedules()) {
      Schedule before = oldConfig == null ? null : oldConfig.schedule(s.name()).orElse(null);
      Instant next =
          before != null && before.firesLike(s) && oldFires.containsKey(s.name())
              ? oldFires.get(s.name())
              : s.nextFireAfter(at);
      if (next != null) {
        fires.put(s.name(), next);
      }
    }
    return fires;
  }

  /**
   * The fires once {@code fire} is served: its schedule next fires after it. Fires that came while
   * the lease ran are after it too, so they are due at once.
   */
  static Map<String, Instant> served(
      Map<String, Instant> nextFires, AgentConfig config, ScheduleFire fire) {
    Map<String, Instant> fires = new LinkedHashMap<>(nextFires);
    Schedule schedule = config.schedule(fire.name()).orElse(null);
    Instant current = fires.get(fire.name());
    if (schedule != null && current != null) {
      Instant next = schedule.nextFireAfter(fire.firedAt());
      if (next == null) {
        fires.remove(fire.name());
      } else if (next.isAfter(current)) {
        fires.put(fire.name(), next);
      }
    }
    return fires;
  }
}
