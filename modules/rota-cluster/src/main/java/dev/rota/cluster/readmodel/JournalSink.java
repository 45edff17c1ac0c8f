package dev.rota.cluster.readmodel;

import com.typesafe.config.Config;
import dev.rota.cluster.journal.ReadModelSink;
import dev.rota.cluster.metrics.RotaMetrics;
import java.util.Optional;
import org.apache.pekko.actor.typed.ActorSystem;

/**
 * Installs the read model in Rota's journal (decision 27): named by {@code
 * rota-journal.read-model-sink}, it gives each journal a {@link ReadModelUpdate}, so the journal
 * writes {@code agent_schedule}, {@code dead_letter} and {@code rota_counter} in the transaction of
 * the events. It is the read model's only writer (decision 97); a database written before it is
 * brought up to date once by {@link ReadModelCatchUp}.
 */
public final class JournalSink implements ReadModelSink.Provider {

  @Override
  public Optional<ReadModelSink> sinkFor(ActorSystem<?> system) {
    Config config = system.settings().config();
    return Optional.of(
        new ReadModelUpdate(
            config.getInt("rota.partitions"), RotaMetrics.get(system)::readModelEventSkipped));
  }

  /** Whether the node's configured journal writes the read model through this sink. */
  public static boolean writesReadModelOf(Config config) {
    String plugin = config.getString("pekko.persistence.journal.plugin");
    String key = plugin + ".read-model-sink";
    return config.hasPath(key) && JournalSink.class.getName().equals(config.getString(key));
  }
}
