package dev.rota.cluster.assign;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.rota.core.scheduling.AgentSchedule;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import org.apache.pekko.actor.testkit.typed.javadsl.ActorTestKit;
import org.apache.pekko.actor.testkit.typed.javadsl.LoggingTestKit;
import org.apache.pekko.actor.testkit.typed.javadsl.TestProbe;
import org.apache.pekko.actor.typed.ActorRef;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;

/** A load larger than a chunk is applied whole before the coordinator says it is ready. */
class CoordinatorLoadTest {
  private static final ActorTestKit kit = ActorTestKit.create();
  private static final Instant T0 = Instant.parse("2026-01-01T00:00:00Z");

  @AfterAll
  static void close() {
    kit.shutdownTestKit();
  }

  @Test
  void appliesALoadOfSeveralChunksBeforeItIsReady() {
    int n = 2 * Coordinator.LOAD_CHUNK + 7;
    List<PartitionLoader.Versioned> rows = new ArrayList<>(n);
    for (int i = 0; i < n; i++) {
      // The last row is the only agent with unread notifications: the first inbox head.
      int unread = i == n - 1 ? 3 : 0;
      rows.add(
          new PartitionLoader.Versioned(
              new AgentSchedule(
                  "a" + i,
                  Set.of("c"),
                  0,
                  unread,
                  unread > 0 ? T0 : null,
                  T0.minusSeconds(n - i),
                  Duration.ZERO,
                  false,
                  false,
                  null),
              1));
    }
    CoordinatorSettings settings =
        new CoordinatorSettings(1, Duration.ofMinutes(5), Duration.ofHours(1), 4);
    ActorRef<Coordinator.Command> coordinator =
        LoggingTestKit.info("Coordinator 0 ready with " + n + " agents")
            .expect(
                kit.system(),
                () ->
                    kit.spawn(
                        Coordinator.create(
                            0,
                            settings,
                            p -> CompletableFuture.completedFuture(rows),
                            Clock.fixed(T0, java.time.ZoneOffset.UTC))));

    TestProbe<Dispatcher.Command> dispatcher = kit.createTestProbe();
    coordinator.tell(new Coordinator.Refresh(dispatcher.getRef()));
    Dispatcher.Heads heads = dispatcher.expectMessageClass(Dispatcher.Heads.class);
    assertEquals("a" + (n - 1), heads.groups().get(0).inbox().get(0).agent().agentId());
  }
}
