package dev.rota.cluster.agent;

import dev.rota.core.model.AgentState;

/**
 * Told after every persisted change of an agent, with the entity's sequence number, so its
 * partition's coordinator can keep its index current (newer versions win).
 */
@FunctionalInterface
public interface AgentChangeListener {
  AgentChangeListener NONE = (state, seqNr) -> {};

  void changed(AgentState state, long seqNr);
}
