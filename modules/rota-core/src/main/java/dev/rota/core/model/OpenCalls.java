package dev.rota.core.model;

import java.time.Instant;
import java.util.List;

/**
 * An agent's calls in progress as its view shows them: the calls it made that wait for replies, and
 * the calls it serves (unread notifications that are calls, some carried by its running turn). It
 * crosses nodes in an {@link AgentSummary}, so each list keeps the oldest {@link #MAX_LISTED} only;
 * the counts are whole.
 *
 * @param madeCount how many calls the agent made wait for their replies
 * @param servedCount how many unread notifications of the agent are calls
 */
public record OpenCalls(List<Made> made, int madeCount, List<Served> served, int servedCount) {
  public static final int MAX_LISTED = 100;
  private static final OpenCalls NONE = new OpenCalls(List.of(), 0, List.of(), 0);

  public OpenCalls {
    made = made == null ? List.of() : List.copyOf(made);
    served = served == null ? List.of() : List.copyOf(served);
  }

  public static OpenCalls none() {
    return NONE;
  }

  /**
   * A call the agent made, waiting for its reply.
   *
   * @param to the callee, as the agent's tenant knows it
   * @param group null when the call stands alone
   * @param answered whether its reply came and is held until its group has all of them
   */
  public record Made(
      String callId, String to, String group, Instant sentAt, Instant deadline, boolean answered) {
    static Made of(OpenCall call) {
      return new Made(
          call.callId(),
          call.targetAgentId(),
          call.group(),
          call.sentAt(),
          call.deadline(),
          call.held());
    }
  }

  /**
   * A call the agent serves: its turn that carries the notification answers it.
   *
   * @param from the caller; {@code agentId} null for a producer outside Rota
   * @param inTurn whether the running turn carries it
   */
  public record Served(
      String callId, CallInfo.Party from, int depth, Instant receivedAt, boolean inTurn) {}

  public static OpenCalls of(AgentState state) {
    List<OpenCall> open = state.calls().openCalls();
    List<Notification> calls = state.inbox().stream().filter(n -> n.call() != null).toList();
    if (open.isEmpty() && calls.isEmpty()) {
      return NONE;
    }
    Lease lease = state.lease();
    List<Served> served =
        calls.stream()
            .limit(MAX_LISTED)
            .map(
                n ->
                    new Served(
                        n.call().callId(),
                        n.call().from(),
                        n.call().depth(),
                        n.receivedAt(),
                        lease != null && lease.notificationIds().contains(n.notificationId())))
            .toList();
    return new OpenCalls(
        open.stream().limit(MAX_LISTED).map(Made::of).toList(), open.size(), served, calls.size());
  }
}
