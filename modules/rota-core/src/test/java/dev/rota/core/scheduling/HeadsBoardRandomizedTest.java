package dev.rota.core.scheduling;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.rota.core.model.ActivationKind;
import dev.rota.core.model.Partitions;
import dev.rota.core.model.RunnerMode;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Random;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Exactness of the claim path as a property: a dispatcher that ranks the partitions' published
 * heads, hiding what it has claimed since, picks exactly what the rule read over all agents at once
 * would pick (the {@link ReferenceScheduler}), however many requests it serves before the
 * partitions publish again — or says which partition it must hear from first. Other changes are
 * published before the next claim (they are outside the coordination window, decision 26); the
 * dispatcher's own claims are never published in between, which is the concurrent case that bends
 * the rule when the board forgets them.
 */
class HeadsBoardRandomizedTest {

  private static final Duration MAX_WAIT = Duration.ofMinutes(20);
  private static final List<String> CAPABILITIES = List.of("code", "web", "gpu");

  @ParameterizedTest(name = "seed {0}")
  @ValueSource(longs = {1L, 2L, 3L, 42L, 7_919L, 20_250_101L})
  void picksWhatOneIndexOfAllAgentsWouldPick(long seed) {
    new Run(seed, 4, 2, 40, 3_000).play();
  }

  @ParameterizedTest(name = "seed {0}")
  @ValueSource(longs = {5L, 11L})
  void holdsWithManyAgentsAndPartitions(long seed) {
    new Run(seed, 16, 3, 300, 2_000).play();
  }

  @Test
  void aBoardThatIgnoresWhatItClaimedBendsTheRuleAndTheCheckSeesIt() {
    // The checker must be able to fail: a dispatcher that forgets its own claims picks an agent
    // that is already leased, which the reference never does.
    Run run = new Run(3L, 2, 2, 30, 3_000);
    run.forgetClaims = true;
    assertThrows(AssertionError.class, run::play);
  }

  @Test
  void awaitsAPartitionWhoseShownHeadsAreAllClaimed() {
    HeadsBoard board = new HeadsBoard(MAX_WAIT);
    AgentSchedule a = Agents.agent("a").lastActivatedAt(Agents.T0.minusSeconds(300)).build();
    AgentSchedule b = Agents.agent("b").lastActivatedAt(Agents.T0.minusSeconds(200)).build();
    AgentSchedule c = Agents.agent("c").lastActivatedAt(Agents.T0.minusSeconds(250)).build();
    board.put(
        0,
        List.of(
            new HeadsBoard.GroupHeads(
                Set.of(), List.of(), List.of(), true, List.of(new HeadsBoard.Head(a, 1)), false)));
    board.put(
        1,
        List.of(
            new HeadsBoard.GroupHeads(
                Set.of(), List.of(), List.of(), true, List.of(new HeadsBoard.Head(b, 1)), true)));
    // a is claimed; partition 0 may hold c (older than b) behind it: wait for partition 0.
    HeadsBoard.Decision d =
        board.decide(
            RunnerMode.EXPLORATION, Set.of(), Agents.T0, h -> !h.agent().agentId().equals("a"));
    assertEquals(new HeadsBoard.Await(0), d);
    board.put(
        0,
        List.of(
            new HeadsBoard.GroupHeads(
                Set.of(), List.of(), List.of(), true, List.of(new HeadsBoard.Head(c, 1)), true)));
    HeadsBoard.Decision after =
        board.decide(
            RunnerMode.EXPLORATION, Set.of(), Agents.T0, h -> !h.agent().agentId().equals("a"));
    HeadsBoard.Take take = assertInstanceOf(HeadsBoard.Take.class, after);
    assertEquals("c", take.pick().agent().agentId());
    assertEquals(ActivationKind.EXPLORATION, take.pick().kind());
  }

  private record Operation(int step, String name, Object argument) {
    @Override
    public String toString() {
      return step + ": " + name + " " + argument;
    }
  }

  private static final class Run {
    private final long seed;
    private final Random random;
    private final int partitions;
    private final int k;
    private final int agents;
    private final int steps;
    private final List<SchedulingIndex> indexes = new ArrayList<>();

    /** All agents in one place: what the dispatcher's picks must equal. */
    private final ReferenceScheduler reference = new ReferenceScheduler(MAX_WAIT);

    private final HeadsBoard board = new HeadsBoard(MAX_WAIT);
    private final Map<String, Long> versions = new HashMap<>();

    /** One instance, as the coordinator's: the index reuses unchanged groups' heads with it. */
    private final java.util.function.ToLongFunction<String> versionOf =
        id -> versions.getOrDefault(id, 0L);

    /** What the dispatcher claimed since the board last heard of it: hidden up to this version. */
    private final Map<String, Long> claimedUpTo = new HashMap<>();

    private final Set<Integer> unpublished = new HashSet<>();
    private final Deque<Operation> history = new ArrayDeque<>();
    private Instant now = Agents.T0;
    private int step;
    boolean forgetClaims;

    Run(long seed, int partitions, int k, int agents, int steps) {
      this.seed = seed;
      this.random = new Random(seed);
      this.partitions = partitions;
      this.k = k;
      this.agents = agents;
      this.steps = steps;
      for (int p = 0; p < partitions; p++) {
        indexes.add(new SchedulingIndex(MAX_WAIT));
      }
    }

    void play() {
      for (step = 0; step < steps; step++) {
        int dice = random.nextInt(100);
        if (dice < 35) {
          upsert(randomRow(randomId()));
        } else if (dice < 40) {
          complete();
        } else if (dice < 45) {
          now = now.plus(Duration.ofMinutes(random.nextInt(10)));
          log("now", now);
          // Time promotes agents in every partition: they publish before the next claim.
          for (int p = 0; p < partitions; p++) {
            unpublished.add(p);
          }
        } else {
          // A burst of requests served before any partition publishes its own claims.
          publishChanges();
          int burst = 1 + random.nextInt(6);
          for (int i = 0; i < burst; i++) {
            claim();
          }
        }
      }
    }

    private void claim() {
      RunnerMode mode = RunnerMode.values()[random.nextInt(RunnerMode.values().length)];
      Set<String> offered = randomCapabilities();
      Optional<HeadsBoard.Pick> expected = reference.next(mode, offered, now);
      HeadsBoard.Decision decision = decide(mode, offered);
      int awaits = 0;
      while (decision instanceof HeadsBoard.Await await) {
        assertTrue(++awaits <= partitions, "awaits more partitions than exist");
        publish(await.partition());
        decision = decide(mode, offered);
      }
      Optional<HeadsBoard.Pick> actual =
          decision instanceof HeadsBoard.Take take ? Optional.of(take.pick()) : Optional.empty();
      if (!expected.equals(actual)) {
        assertEquals(
            expected,
            actual,
            "seed "
                + seed
                + ", step "
                + step
                + ": claim "
                + mode
                + " "
                + offered
                + "\n  "
                + String.join("\n  ", history.stream().map(Operation::toString).toList()));
      }
      actual.ifPresent(
          pick -> {
            String id = pick.agent().agentId();
            log("claimed", id);
            reference.markLeased(id);
            // The coordinator hears of the lease, but does not publish before the next request.
            long v = bump(id);
            indexOf(id).upsert(reference.get(id).orElseThrow());
            if (!forgetClaims) {
              claimedUpTo.put(id, v);
            }
          });
    }

    private HeadsBoard.Decision decide(RunnerMode mode, Set<String> offered) {
      return board.decide(
          mode,
          offered,
          now,
          head -> {
            Long hidden = claimedUpTo.get(head.agent().agentId());
            return hidden == null || head.version() > hidden;
          });
    }

    private void upsert(AgentSchedule row) {
      log("upsert", row);
      reference.upsert(row);
      indexOf(row.agentId()).upsert(row);
      bump(row.agentId());
      unpublished.add(partitionOf(row.agentId()));
    }

    /** A leased agent's activation ends: read, ran now, lease gone. */
    private void complete() {
      List<String> leased =
          reference.ids().stream().filter(id -> reference.get(id).orElseThrow().leased()).toList();
      if (leased.isEmpty()) {
        return;
      }
      AgentSchedule was = reference.get(leased.get(random.nextInt(leased.size()))).orElseThrow();
      boolean arrivals = random.nextInt(4) == 0;
      upsert(
          new AgentSchedule(
              was.agentId(),
              was.capabilities(),
              was.priority(),
              arrivals ? 1 + random.nextInt(2) : 0,
              arrivals ? now : null,
              now,
              was.minActivationInterval(),
              false,
              was.paused(),
              null,
              random.nextInt(3) == 0 ? now.plus(Duration.ofMinutes(random.nextInt(20))) : null));
    }

    private void publishChanges() {
      for (int p : List.copyOf(unpublished)) {
        publish(p);
      }
    }

    private void publish(int partition) {
      log("publish", partition);
      board.put(partition, indexes.get(partition).heads(k, now, versionOf));
      unpublished.remove(partition);
    }

    private long bump(String id) {
      return versions.merge(id, 1L, Long::sum);
    }

    private SchedulingIndex indexOf(String id) {
      return indexes.get(partitionOf(id));
    }

    private int partitionOf(String id) {
      return Partitions.of(id, partitions);
    }

    private void log(String operation, Object argument) {
      history.addLast(new Operation(step, operation, argument));
      if (history.size() > 30) {
        history.removeFirst();
      }
    }

    private String randomId() {
      return "agent-" + random.nextInt(agents);
    }

    private Set<String> randomCapabilities() {
      Set<String> set = new HashSet<>();
      for (String capability : CAPABILITIES) {
        if (random.nextInt(3) == 0) {
          set.add(capability);
        }
      }
      return set;
    }

    private AgentSchedule randomRow(String id) {
      int unread = random.nextInt(3) == 0 ? 0 : random.nextInt(4);
      Instant oldestUnread = unread > 0 ? now.minus(Duration.ofMinutes(random.nextInt(40))) : null;
      Instant lastActivated =
          random.nextInt(5) == 0 ? null : now.minus(Duration.ofMinutes(random.nextInt(120)));
      Instant snoozedUntil =
          random.nextInt(6) == 0 ? now.plus(Duration.ofMinutes(random.nextInt(30) - 10L)) : null;
      return new AgentSchedule(
          id,
          randomCapabilities(),
          random.nextInt(3),
          unread,
          oldestUnread,
          lastActivated,
          random.nextInt(4) == 0 ? Duration.ofMinutes(30) : Duration.ZERO,
          random.nextInt(8) == 0,
          random.nextInt(10) == 0,
          snoozedUntil,
          random.nextInt(3) == 0 ? now.plus(Duration.ofMinutes(random.nextInt(30) - 15L)) : null);
    }
  }
}
