package dev.rota.cluster.rescue;

import com.typesafe.config.ConfigFactory;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import org.apache.pekko.actor.testkit.typed.javadsl.ActorTestKit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;

/**
 * The maintenance's storage messages cross nodes (the admin API of any node asks the singleton).
 */
class JournalMaintenanceMessagesTest {
  private static final ActorTestKit KIT =
      ActorTestKit.create(
          "JournalMaintenanceMessagesTest",
          ConfigFactory.parseString("pekko.actor.serialize-messages = off")
              .withFallback(ConfigFactory.load()));

  @AfterAll
  static void stop() {
    KIT.shutdownTestKit();
  }

  @Test
  void storageMessagesSurviveSerialization() {
    var serialization = KIT.serializationTestKit();
    var probe = KIT.<JournalMaintenance.StorageReply>createTestProbe();
    StorageReport postgres =
        new StorageReport(
            Instant.parse("2026-11-24T00:00:00Z"),
            120_000,
            48_000_000,
            950_000,
            410_000_000,
            Duration.ofHours(170),
            1_234,
            Duration.ofDays(7));
    StorageReport h2 =
        new StorageReport(
            Instant.parse("2026-11-24T00:01:00Z"),
            0,
            0,
            42,
            -1,
            Duration.ZERO,
            -1,
            Duration.ofDays(7));
    for (Object message :
        List.of(
            new JournalMaintenance.GetStorage(probe.ref()),
            new JournalMaintenance.StorageReply(null),
            new JournalMaintenance.StorageReply(postgres),
            new JournalMaintenance.StorageReply(h2))) {
      serialization.verifySerialization(message, true);
    }
  }
}
