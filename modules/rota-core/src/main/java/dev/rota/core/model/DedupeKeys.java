package dev.rota.core.model;

import com.fasterxml.jackson.annotation.JsonCreator;
import com.fasterxml.jackson.annotation.JsonValue;
import dev.rota.core.model.AgentState.DedupeEntry;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Predicate;
import org.pcollections.OrderedPMap;

/**
 * An agent's dedupe keys, oldest first, as a persistent map: adding a key shares every other key
 * with the state before, so a notification costs O(log n) whatever the number of keys, where a copy
 * of the whole map cost O(n) and let a producer with unique keys make every notification and
 * snapshot of the agent dearer. At most {@code maxKeys} are kept: past the cap the oldest key is
 * dropped even if its window has not passed, and a retry under a dropped key is accepted again.
 *
 * <p>Stored in snapshots as the plain map it always was ({@code {key: {notificationId,
 * acceptedAt}}}); read back oldest first by {@code acceptedAt}, so snapshots written before keep
 * loading.
 */
public final class DedupeKeys {
  /** The default cap of keys per agent ({@code rota.agent.max-dedupe-keys}). */
  public static final int DEFAULT_MAX_KEYS = 1000;

  private static final DedupeKeys EMPTY = new DedupeKeys(OrderedPMap.empty());

  private final OrderedPMap<String, DedupeEntry> entries;

  private DedupeKeys(OrderedPMap<String, DedupeEntry> entries) {
    this.entries = entries;
  }

  public static DedupeKeys empty() {
    return EMPTY;
  }

  /** The keys of a map, oldest first by {@code acceptedAt} whatever the map's order. */
  @JsonCreator(mode = JsonCreator.Mode.DELEGATING)
  public static DedupeKeys of(Map<String, DedupeEntry> byKey) {
    if (byKey == null || byKey.isEmpty()) {
      return EMPTY;
    }
    List<Map.Entry<String, DedupeEntry>> ordered = new ArrayList<>(byKey.entrySet());
    ordered.sort(Comparator.comparing(e -> e.getValue().acceptedAt()));
    OrderedPMap<String, DedupeEntry> entries = OrderedPMap.empty();
    for (Map.Entry<String, DedupeEntry> e : ordered) {
      entries = entries.plus(e.getKey(), e.getValue());
    }
    return new DedupeKeys(entries);
  }

  /** The keys as a read-only map, oldest first; also what snapshots hold. */
  @JsonValue
  public Map<String, DedupeEntry> asMap() {
    return entries;
  }

  public Optional<DedupeEntry> get(String key) {
    return Optional.ofNullable(entries.get(key));
  }

  public int size() {
    return entries.size();
  }

  /**
   * These keys with the oldest ones dropped while {@code binding} says they no longer bind, then
   * {@code key} added as the newest (replacing an older entry under it), then the oldest dropped
   * until at most {@code maxKeys} remain. Keys behind a still-binding oldest one stay until they
   * are the oldest (or the cap takes them); their lookups check the window anyway. Each key is
   * dropped once, so the cost per call is O(log n) amortised.
   *
   * @param key the new key; null to only drop what no longer binds
   */
  public DedupeKeys added(
      String key, DedupeEntry entry, int maxKeys, Predicate<DedupeEntry> binding) {
    OrderedPMap<String, DedupeEntry> next = entries;
    while (!next.isEmpty()) {
      Map.Entry<String, DedupeEntry> oldest = next.entrySet().iterator().next();
      if (binding.test(oldest.getValue())) {
        break;
      }
      next = next.minus(oldest.getKey());
    }
    if (key != null) {
      next = next.minus(key).plus(key, entry);
      while (next.size() > Math.max(1, maxKeys)) {
        next = next.minus(next.entrySet().iterator().next().getKey());
      }
    }
    return next == entries ? this : new DedupeKeys(next);
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof DedupeKeys other && entries.equals(other.entries);
  }

  @Override
  public int hashCode() {
    return entries.hashCode();
  }

  @Override
  public String toString() {
    return entries.toString();
  }
}
