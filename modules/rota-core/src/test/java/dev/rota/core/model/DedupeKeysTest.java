package dev.rota.core.model;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.json.JsonMapper;
import com.fasterxml.jackson.datatype.jsr310.JavaTimeModule;
import dev.rota.core.model.AgentState.DedupeEntry;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class DedupeKeysTest {
  private static final Instant T0 = Instant.parse("2026-01-01T00:00:00Z");
  private static final Duration WINDOW = Duration.ofHours(1);

  private static AgentState agent() {
    return AgentState.empty("a1").registered(AgentConfig.defaults("a1"), T0);
  }

  private static Notification notification(String id, String key, Instant at) {
    return new Notification(id, "mention", null, key, at, 0);
  }

  /** {@code n} notifications, each under a key of its own, one a second from T0. */
  private static AgentState withUniqueKeys(AgentState state, int n, int maxKeys) {
    for (int i = 0; i < n; i++) {
      state = state.notified(notification("n" + i, "k" + i, T0.plusSeconds(i)), WINDOW, maxKeys);
    }
    return state;
  }

  @Test
  void keepsAtMostTheCapAndForgetsTheOldestKeyFirst() {
    AgentState state = withUniqueKeys(agent(), 5, 3);

    assertEquals(List.of("k2", "k3", "k4"), List.copyOf(state.dedupe().asMap().keySet()));
    Instant now = T0.plusSeconds(10);
    assertTrue(state.duplicateOf("k4", now, WINDOW).isPresent());
    // The cost of the cap: a retry under a forgotten key is a new notification.
    assertTrue(state.duplicateOf("k0", now, WINDOW).isEmpty());
  }

  @Test
  void forgetsKeysWhoseWindowPassedAndWhoseNotificationIsRead() {
    AgentState state = withUniqueKeys(agent(), 3, 100);
    Lease lease =
        new Lease(
            Ids.leaseId("a1", 1),
            "r1",
            ActivationKind.INBOX,
            1,
            1,
            T0.plusSeconds(5),
            T0.plusSeconds(35),
            30,
            List.of("n0", "n1"));
    state = state.leaseGranted(lease).completed(T0.plusSeconds(6));

    Instant later = T0.plus(WINDOW).plusSeconds(10);
    state = state.notified(notification("n9", "k9", later), WINDOW, 100);

    // k0 and k1 are read and out of their window; k2's notification is still unread.
    assertEquals(List.of("k2", "k9"), List.copyOf(state.dedupe().asMap().keySet()));
    assertTrue(state.duplicateOf("k2", later, WINDOW).isPresent());
  }

  @Test
  void anEarlierStateKeepsItsOwnKeys() {
    AgentState before = withUniqueKeys(agent(), 3, 100);
    AgentState after = before.notified(notification("n3", "k3", T0.plusSeconds(3)), WINDOW, 3);

    assertEquals(List.of("k0", "k1", "k2"), List.copyOf(before.dedupe().asMap().keySet()));
    assertEquals(List.of("k1", "k2", "k3"), List.copyOf(after.dedupe().asMap().keySet()));
  }

  /**
   * The cost per notification does not grow with the number of keys: each key is added to a
   * persistent map that shares the others (copying the map per key, as the state once did, is
   * 2·10^10 entry copies for 200,000 keys). Shown by what sharing implies rather than by a clock:
   * 200,000 keys go in, and every earlier version stays whole beside the later ones.
   */
  @Test
  void addingAKeyDoesNotCopyTheOthers() {
    DedupeKeys keys = DedupeKeys.empty();
    DedupeKeys atHalf = null;
    for (int i = 0; i < 200_000; i++) {
      keys = keys.added("k" + i, new DedupeEntry("n" + i, T0.plusSeconds(i)), 1_000_000, e -> true);
      if (i == 99_999) {
        atHalf = keys;
      }
    }

    assertEquals(200_000, keys.size());
    assertEquals(100_000, atHalf.size(), "an earlier version is unchanged by later additions");
    assertTrue(atHalf.get("k100000").isEmpty());
    assertTrue(
        keys.asMap() instanceof org.pcollections.PMap, "a persistent map shares its entries");
  }

  @Test
  void snapshotsHoldThePlainMapAndOlderOnesLoadOldestFirst() throws Exception {
    ObjectMapper json = JsonMapper.builder().addModule(new JavaTimeModule()).build();
    // A snapshot of before this structure: a map in no particular order.
    Map<String, DedupeEntry> stored = new LinkedHashMap<>();
    stored.put("late", new DedupeEntry("n2", T0.plusSeconds(20)));
    stored.put("early", new DedupeEntry("n1", T0.plusSeconds(10)));
    String old = json.writeValueAsString(stored);

    DedupeKeys read = json.readValue(old, DedupeKeys.class);

    assertEquals(List.of("early", "late"), new ArrayList<>(read.asMap().keySet()));
    assertEquals(read, json.readValue(json.writeValueAsString(read), DedupeKeys.class));
    assertEquals(
        json.readTree(old), json.readTree(json.writeValueAsString(read)), "the same shape");
  }

  @Test
  void aWholeAgentStateRoundTripsThroughJson() throws Exception {
    ObjectMapper json = JsonMapper.builder().addModule(new JavaTimeModule()).build();
    AgentState state = withUniqueKeys(agent(), 4, 100);

    AgentState read = json.readValue(json.writeValueAsBytes(state), AgentState.class);

    assertEquals(state.dedupe(), read.dedupe());
    assertEquals(List.of("k0", "k1", "k2", "k3"), List.copyOf(read.dedupe().asMap().keySet()));
  }
}
