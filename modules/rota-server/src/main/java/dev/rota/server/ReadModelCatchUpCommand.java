package dev.rota.server;

import com.typesafe.config.Config;
import com.typesafe.config.ConfigFactory;
import dev.rota.cluster.readmodel.ReadModelCatchUp;
import org.apache.pekko.actor.typed.ActorSystem;
import org.apache.pekko.actor.typed.javadsl.Behaviors;
import org.apache.pekko.serialization.Serialization;
import org.apache.pekko.serialization.SerializationExtension;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * {@code java -jar rota-server.jar catch-up-read-model}: the one-time step that brings a database
 * written before Rota's journal wrote the read model up to date ({@link ReadModelCatchUp}, decision
 * 94, docs/operations.md). Run with every node stopped, with the node's configuration; it migrates
 * the schema like a starting node, applies what the retired projection had not, and exits 0 (also
 * when there was nothing to do), or 1 with the reason.
 */
final class ReadModelCatchUpCommand {
  static final String NAME = "catch-up-read-model";

  private ReadModelCatchUpCommand() {}

  static int run() {
    Logger log = LoggerFactory.getLogger(ReadModelCatchUpCommand.class);
    Config config = RotaConfig.load(ConfigFactory.empty());
    RotaSettings settings = RotaSettings.from(config);
    int partitions = config.getInt("rota.partitions");
    try (Database database = Database.open(settings.db())) {
      database.migrate();
      database.requireSetting("rota.partitions", String.valueOf(partitions));
      // Only the events' serializers are needed: no cluster, no HTTP.
      Config local = ConfigFactory.parseString("pekko.actor.provider = local").withFallback(config);
      ActorSystem<Void> system = ActorSystem.create(Behaviors.empty(), "rota-catch-up", local);
      try {
        Serialization serialization = SerializationExtension.get(system);
        ReadModelCatchUp.Result result =
            new ReadModelCatchUp(
                    database.dataSource(),
                    partitions,
                    (payload, id, manifest) ->
                        serialization.deserialize(payload, id, manifest).get())
                .run();
        if (result.offsets() == 0) {
          log.info(
              "Read model: nothing to catch up (no projection offsets in {})", database.describe());
        } else {
          log.info(
              "Read model caught up: {} events applied ({} skipped) after the offsets of {}"
                  + " partitions; the offsets are deleted",
              result.applied(),
              result.skipped(),
              result.offsets());
        }
        return 0;
      } finally {
        system.terminate();
        system.getWhenTerminated().toCompletableFuture().join();
      }
    } catch (RuntimeException | java.sql.SQLException e) {
      log.error("Read model catch-up failed: {}", e.toString(), e);
      return 1;
    }
  }
}
