package dev.rota.cluster.pool;

import com.typesafe.config.ConfigFactory;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import org.apache.pekko.actor.testkit.typed.javadsl.ActorTestKit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;

/** The scaler's messages cross nodes (the admin API asks the singleton on another node). */
class PoolScalerMessagesTest {
  private static final ActorTestKit KIT =
      ActorTestKit.create(
          "PoolScalerMessagesTest",
          ConfigFactory.parseString("pekko.actor.serialize-messages = off")
              .withFallback(ConfigFactory.load()));

  @AfterAll
  static void stop() {
    KIT.shutdownTestKit();
  }

  @Test
  void messagesThatCrossNodesSurviveSerialization() {
    var serialization = KIT.serializationTestKit();
    var probe = KIT.<PoolScaler.Reply>createTestProbe();
    Instant at = Instant.parse("2026-11-24T00:00:00Z");
    var pool =
        new PoolsReport.Pool(
            "notify",
            "notification",
            List.of("code"),
            1,
            9,
            4,
            3,
            3,
            9,
            6,
            "inbox 12.0 (...); up from 4",
            20,
            17,
            at.minusSeconds(3),
            40,
            Map.of(0L, 30L, 60L, 10L),
            at.minusSeconds(30),
            Duration.ofMinutes(5));
    for (Object message :
        List.of(
            new PoolScaler.GetPools(probe.ref()),
            new PoolScaler.Reply(null),
            new PoolScaler.Reply(
                new PoolsReport(at, Duration.ofMillis(250), Duration.ofHours(1), List.of(pool))))) {
      serialization.verifySerialization(message, true);
    }
  }
}
