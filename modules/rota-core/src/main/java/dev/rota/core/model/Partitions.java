package dev.rota.core.model;

/**
 * Maps an agent id to its partition: a slice of the id space with its own coordinator. Uses {@link
 * String#hashCode()}, which the JLS fixes, so every node and every restart agrees. The partition
 * count must not change while a journal exists: events are tagged by partition.
 */
public final class Partitions {
  private Partitions() {}

  public static int of(String agentId, int partitions) {
    return Math.floorMod(agentId.hashCode(), partitions);
  }

  public static String tag(int partition) {
    return "agent-" + partition;
  }
}
