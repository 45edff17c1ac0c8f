package dev.rota.bench.system;

/** The bench's agent ids: {@code agent-000000}, {@code agent-000001}, ... valid Rota entity ids. */
public final class AgentIds {

  private static final String PREFIX = "agent-";

  private AgentIds() {}

  public static String id(int index) {
    return PREFIX + String.format("%06d", index);
  }

  /** The index back from an id, or -1 for an id the bench did not make. */
  public static int index(String agentId) {
    if (agentId == null || !agentId.startsWith(PREFIX)) {
      return -1;
    }
    try {
      return Integer.parseInt(agentId, PREFIX.length(), agentId.length(), 10);
    } catch (NumberFormatException e) {
      return -1;
    }
  }
}
