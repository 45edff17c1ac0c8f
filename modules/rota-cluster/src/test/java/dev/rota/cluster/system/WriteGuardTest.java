package dev.rota.cluster.system;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.typesafe.config.ConfigFactory;
import java.time.Duration;
import java.util.Optional;
import org.apache.pekko.actor.testkit.typed.javadsl.ActorTestKit;
import org.apache.pekko.cluster.typed.Cluster;
import org.apache.pekko.cluster.typed.Join;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;

/** The guard of one real (single-node) cluster member: closed until Up, open once Up. */
class WriteGuardTest {
  private static final ActorTestKit testKit =
      ActorTestKit.create(
          "WriteGuardTest",
          ConfigFactory.parseString(
                  "pekko.actor.provider = cluster\n"
                      + "pekko.remote.artery.canonical.port = 0\n"
                      + "pekko.remote.artery.canonical.hostname = 127.0.0.1\n")
              .withFallback(ConfigFactory.load()));

  @AfterAll
  static void stop() {
    testKit.shutdownTestKit();
  }

  @Test
  void refusesUntilThisNodeIsAnUpMemberThenAllows() throws InterruptedException {
    WriteGuard guard = WriteGuard.get(testKit.system());
    Optional<String> before = guard.refusal();
    assertTrue(before.isPresent());
    assertTrue(before.get().contains("not an Up member"), before.get());

    Cluster cluster = Cluster.get(testKit.system());
    cluster.manager().tell(Join.create(cluster.selfMember().address()));
    await("this node an Up member that may write")
        .atMost(Duration.ofSeconds(20))
        .untilAsserted(() -> assertEquals(Optional.empty(), guard.refusal()));
  }
}
