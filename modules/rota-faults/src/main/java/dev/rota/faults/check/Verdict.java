package dev.rota.faults.check;

import java.util.List;

/**
 * What {@link HistoryChecker} found in one history. Each list holds one line per violation, naming
 * the agent, lease or key involved; an empty list is a passed check.
 *
 * @param acknowledged notifications the producers had acknowledged (202)
 * @param completed notifications carried by an accepted completion
 * @param lost acknowledged notifications neither completed, nor possibly completed by a completion
 *     whose answer never came, nor dead-lettered, nor still unread at the end
 * @param undrained agents with unread notifications or a lease when the run ended (the drain did
 *     not finish); their keys are not counted as lost
 * @param staleAccepted completions accepted although another lease on the agent had been granted
 *     before the completion was sent
 * @param overlappingHolds leases granted while an earlier lease on the agent was still held and not
 *     past its known expiry
 * @param duplicateCompletions notifications carried by more than one accepted completion
 * @param duplicateAccepts dedupe keys acknowledged under more than one notification id
 * @param endedEarly leases refused to their runner (410) before their known expiry
 * @param windows the unavailability window of every injected fault
 * @param interruptedCompleted completions accepted from a lease that new input had interrupted
 */
public record Verdict(
    int acknowledged,
    int completed,
    List<String> lost,
    List<String> undrained,
    List<String> staleAccepted,
    List<String> overlappingHolds,
    List<String> duplicateCompletions,
    List<String> duplicateAccepts,
    List<String> endedEarly,
    List<FaultWindow> windows,
    List<String> interruptedCompleted) {

  public Verdict(
      int acknowledged,
      int completed,
      List<String> lost,
      List<String> undrained,
      List<String> staleAccepted,
      List<String> overlappingHolds,
      List<String> duplicateCompletions,
      List<String> duplicateAccepts,
      List<String> endedEarly,
      List<FaultWindow> windows) {
    this(
        acknowledged,
        completed,
        lost,
        undrained,
        staleAccepted,
        overlappingHolds,
        duplicateCompletions,
        duplicateAccepts,
        endedEarly,
        windows,
        List.of());
  }

  /** Nothing lost, no stale completion, no overlap, no duplicate, everything drained. */
  public boolean safe() {
    return lost.isEmpty()
        && undrained.isEmpty()
        && staleAccepted.isEmpty()
        && overlappingHolds.isEmpty()
        && duplicateCompletions.isEmpty()
        && duplicateAccepts.isEmpty()
        && endedEarly.isEmpty()
        && interruptedCompleted.isEmpty();
  }

  /** Every violation, one line each (empty when {@link #safe()}). */
  public List<String> violations() {
    return java.util.stream.Stream.of(
            prefixed("lost", lost),
            prefixed("undrained", undrained),
            prefixed("stale completion accepted", staleAccepted),
            prefixed("overlapping hold", overlappingHolds),
            prefixed("duplicate completion", duplicateCompletions),
            prefixed("duplicate accept", duplicateAccepts),
            prefixed("lease ended early", endedEarly),
            prefixed("completion accepted from an interrupted lease", interruptedCompleted))
        .flatMap(List::stream)
        .toList();
  }

  private static List<String> prefixed(String check, List<String> lines) {
    return lines.stream().map(line -> check + ": " + line).toList();
  }

  /**
   * How long the agents were not served after one injected fault.
   *
   * @param kind the fault's kind
   * @param node the node it hit (0 for the database)
   * @param agentsAffected agents with at least one failed publish after the fault
   * @param maxWindowMs the longest time from the fault to an affected agent's first acknowledged
   *     publish after its failures; {@code Long.MAX_VALUE} if one was never served again
   * @param worstAgent the agent with that window (null when none was affected)
   * @param neverServedAgain affected agents without an acknowledged publish before the next fault
   *     or the end of the run
   * @param maxOutageMs the longest time from an affected agent's first failed publish to its next
   *     acknowledged one (the outage itself, for faults whose effect starts later than the fault,
   *     as when a restarted node rejoins); {@code Long.MAX_VALUE} if one was never served again
   * @param laterFailures agents served after the fault that had a publish fail later (not held to
   *     the window)
   * @param hostedAgents the faulty node's agents: hosted there just before the fault (or, without a
   *     placement, the agents the fault took away; every agent for the database)
   * @param hostedWindowMs the longest time from the fault until one of them was first served again
   *     ({@code Long.MAX_VALUE} if one never was)
   * @param worstHostedAgent the agent with that time
   * @param othersMaxWaitMs the longest any other agent's notification waited for its
   *     acknowledgement after the fault (from its first attempt, or the fault if later)
   * @param worstOtherAgent the agent with that wait
   */
  public record FaultWindow(
      String kind,
      int node,
      long atMs,
      int agentsAffected,
      long maxWindowMs,
      String worstAgent,
      int neverServedAgain,
      long maxOutageMs,
      int laterFailures,
      int hostedAgents,
      long hostedWindowMs,
      String worstHostedAgent,
      long othersMaxWaitMs,
      String worstOtherAgent) {

    /** Every affected agent was served again within {@code boundMs} of the fault. */
    public boolean within(long boundMs) {
      return neverServedAgain == 0 && maxWindowMs <= boundMs;
    }

    /** Every one of the faulty node's agents was served again within {@code boundMs}. */
    public boolean hostedWithin(long boundMs) {
      return hostedWindowMs <= boundMs;
    }

    /** No other agent waited longer than {@code boundMs} for an acknowledgement. */
    public boolean othersWithin(long boundMs) {
      return othersMaxWaitMs <= boundMs;
    }
  }
}
