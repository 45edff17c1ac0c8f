package dev.rota.faults.check;

import java.util.List;
import java.util.Map;
import java.util.stream.Stream;

/**
 * What {@link CallChecker} found of sends, calls, replies and groups in one history: counts for the
 * run's table, and one line per violation (an empty list is a passed check).
 *
 * @param sends items sent by accepted completions (plain sends and calls)
 * @param calls of those, calls
 * @param refusedSends items of completions refused (410), which must never be delivered
 * @param replies replies completed by their caller, by status ({@code answered}, {@code failed},
 *     {@code timedOut}; with the error's reason in brackets when there is one)
 * @param groups groups of calls sent by accepted completions
 * @param groupsDelivered of those, groups whose replies a caller's accepted turn carried, whole
 * @param undelivered sends of accepted completions their target never completed (nor dead-lettered)
 * @param duplicateDeliveries sends completed by more than one accepted turn, or by an agent other
 *     than their target
 * @param fromRefused sends of a completion that was refused (410) and never possibly applied, yet
 *     carried by a turn
 * @param missingReplies calls of accepted completions whose caller completed no reply
 * @param doubledReplies calls whose caller completed more than one reply
 * @param strayReplies replies the caller completed that answer no call sent by an accepted
 *     completion
 * @param brokenGroups turns that carried some of a group's replies but not all of them
 */
public record CallVerdict(
    int sends,
    int calls,
    int refusedSends,
    Map<String, Integer> replies,
    int groups,
    int groupsDelivered,
    List<String> undelivered,
    List<String> duplicateDeliveries,
    List<String> fromRefused,
    List<String> missingReplies,
    List<String> doubledReplies,
    List<String> strayReplies,
    List<String> brokenGroups) {

  /**
   * No send lost, doubled or leaked from a refused completion; one reply per call; whole groups.
   */
  public boolean safe() {
    return violations().isEmpty();
  }

  /** Whether the history had any send at all (a run with the call workload). */
  public boolean any() {
    return sends > 0 || !replies.isEmpty();
  }

  /** Every violation, one line each. */
  public List<String> violations() {
    return Stream.of(
            prefixed("send not delivered", undelivered),
            prefixed("send delivered twice", duplicateDeliveries),
            prefixed("send delivered from a refused completion", fromRefused),
            prefixed("call without a reply", missingReplies),
            prefixed("call replied twice", doubledReplies),
            prefixed("reply to no call", strayReplies),
            prefixed("group delivered in part", brokenGroups))
        .flatMap(List::stream)
        .toList();
  }

  private static List<String> prefixed(String check, List<String> lines) {
    return lines.stream().map(line -> check + ": " + line).toList();
  }
}
