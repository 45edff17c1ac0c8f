package dev.rota.cluster.assign;

import dev.rota.core.scheduling.AgentSchedule;
import java.util.List;
import java.util.concurrent.CompletionStage;

/** Loads a partition's agents from the read model, for a coordinator's start and repairs. */
@FunctionalInterface
public interface PartitionLoader {
  PartitionLoader EMPTY = p -> java.util.concurrent.CompletableFuture.completedFuture(List.of());

  CompletionStage<List<Versioned>> load(int partition);

  /** An agent's schedule at the entity's sequence number {@code seqNr}. */
  record Versioned(AgentSchedule schedule, long seqNr) {}
}
