package dev.rota.faults.harness;

import com.fasterxml.jackson.databind.JsonNode;
import dev.rota.faults.history.Event.Outcome;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * What {@link KillBetweenCompletionAndDeliveryTest}'s runners sent and what their claims carried,
 * and the check of the two against each other. A send is known by its payload's key {@code k},
 * unique in the run; a delivered send is a notification in its target's inbox, and two deliveries
 * of one send would be two notifications, so each key is counted by the distinct notification ids
 * that carried it (a notification carried again after a lease was lost keeps its id). A call is
 * known by the {@code callId} its target's claim showed beside the key; its reply by the same
 * {@code callId} in the payload of a {@code rota.reply} its caller's claim carried.
 */
final class SendLedger {
  static final String SEND_TYPE = "crash-send";
  static final String REPLY_TYPE = "rota.reply";

  /** One item of a completion's {@code send}. */
  record Sent(String key, String sender, String target, boolean call, String leaseId) {}

  private final Map<String, Sent> sent = new ConcurrentHashMap<>();
  private final Map<String, Outcome> completions = new ConcurrentHashMap<>();
  private final Map<String, Set<String>> sendCarriers = new ConcurrentHashMap<>();
  private final Map<String, String> callIds = new ConcurrentHashMap<>(); // key -> callId
  private final Map<String, Set<String>> replyCarriers = new ConcurrentHashMap<>();
  private final Map<String, Set<String>> replyHolders = new ConcurrentHashMap<>(); // agents

  /** Records a lease's send items, before its completion is tried. */
  void sending(List<Sent> items) {
    for (Sent item : items) {
      sent.put(item.key(), item);
    }
  }

  /** Records how the one completion of {@code leaseId} went. */
  void completed(String leaseId, Outcome outcome) {
    completions.put(leaseId, outcome);
  }

  /** Records what a claim of {@code agentId} carried: sends, calls and replies. */
  void carried(String agentId, JsonNode notifications) {
    for (JsonNode n : notifications) {
      String id = n.path("notificationId").asText();
      if (SEND_TYPE.equals(n.path("type").asText())) {
        String key = n.path("payload").path("k").asText();
        sendCarriers.computeIfAbsent(key, k -> ConcurrentHashMap.newKeySet()).add(id);
        if (n.path("call").isObject()) {
          callIds.put(key, n.path("call").path("callId").asText());
        }
      } else if (REPLY_TYPE.equals(n.path("type").asText())) {
        String callId = n.path("payload").path("callId").asText();
        replyCarriers.computeIfAbsent(callId, k -> ConcurrentHashMap.newKeySet()).add(id);
        replyHolders.computeIfAbsent(callId, k -> ConcurrentHashMap.newKeySet()).add(agentId);
      }
    }
  }

  int sends() {
    return sent.size();
  }

  long acknowledgedSends() {
    return sent.values().stream().filter(this::acknowledged).count();
  }

  long acknowledgedCalls() {
    return sent.values().stream().filter(s -> s.call() && acknowledged(s)).count();
  }

  /**
   * Every way the run broke the contract, one line each (empty: none): a send of an acknowledged
   * completion not delivered, or delivered twice; a send of a refused completion (410) delivered; a
   * send of a completion whose answer was lost delivered twice; a call of an acknowledged
   * completion that never reached its target; a call that reached it without exactly one reply, or
   * with a reply at another agent than its caller.
   */
  List<String> violations() {
    List<String> found = new ArrayList<>();
    for (Sent s : sent.values()) {
      int deliveries = sendCarriers.getOrDefault(s.key(), Set.of()).size();
      Outcome outcome = completions.get(s.leaseId());
      if (acknowledged(s) && deliveries != 1) {
        found.add(s + " of an acknowledged completion delivered " + deliveries + " times");
      } else if (outcome == Outcome.LOST && deliveries != 0) {
        found.add(s + " of a refused completion delivered " + deliveries + " times");
      } else if (deliveries > 1) {
        found.add(s + " (completion " + outcome + ") delivered " + deliveries + " times");
      }
      if (!s.call()) {
        continue;
      }
      String callId = callIds.get(s.key());
      if (callId == null) {
        if (acknowledged(s)) {
          found.add(s + ": its target never carried the call");
        }
        continue;
      }
      int replies = replyCarriers.getOrDefault(callId, Set.of()).size();
      if (replies != 1) { // its target carried it: the call was made, and is answered once
        found.add(s + " (call " + callId + ") answered by " + replies + " replies");
      }
      Set<String> holders = replyHolders.getOrDefault(callId, Set.of());
      if (!holders.isEmpty() && !holders.equals(Set.of(s.sender()))) {
        found.add(s + " (call " + callId + ") replied to " + holders);
      }
    }
    return found;
  }

  private boolean acknowledged(Sent s) {
    return completions.get(s.leaseId()) == Outcome.OK;
  }
}
