package dev.rota.core.model;

import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The transitions of an agent's {@link CallBook}: what a turn sent, what was delivered or given up,
 * and the replies to its calls. Pure, like {@link AgentState}'s own, so the entity's event handler
 * only calls them. The history names every call by its id, on both sides.
 */
public final class CallState {
  private CallState() {}

  /** A completed turn's sends and replies are owed; its calls are open. */
  public static AgentState sent(
      AgentState s, List<OutboxItem> items, List<OpenCall> calls, Instant at) {
    if (items.isEmpty() && calls.isEmpty()) {
      return s;
    }
    AgentState after = with(s, s.calls().sent(items, calls));
    for (OpenCall call : calls) {
      after =
          after.recorded(
              "call.sent", at, Map.of("callId", call.callId(), "to", call.targetAgentId()));
    }
    return after;
  }

  /** A completion left exactly {@code owed} deferred: the calls the agent still owes. */
  public static AgentState owing(AgentState s, List<CallInfo> owed) {
    if (owed.equals(s.calls().owed())) {
      return s;
    }
    return with(s, s.calls().owing(owed));
  }

  /** The target accepted outbox item {@code sendId}. */
  public static AgentState delivered(AgentState s, String sendId, Instant at) {
    var item = s.calls().outboxItem(sendId);
    if (item.isEmpty()) {
      return s;
    }
    AgentState after = with(s, s.calls().withoutSend(sendId));
    if (item.get().isReply()) {
      return after.recorded(
          "call.replied",
          at,
          Map.of("callId", item.get().replyTo(), "status", item.get().status()));
    }
    return after;
  }

  /**
   * Outbox item {@code sendId} could not be delivered ({@code reason}); a plain send becomes the
   * sender's dead letter {@code dead} (null for a call or a reply, which are answered otherwise).
   */
  public static AgentState undeliverable(
      AgentState s, String sendId, String reason, DeadLetter dead, Instant at) {
    var item = s.calls().outboxItem(sendId);
    if (item.isEmpty()) {
      return s;
    }
    AgentStateBuilder b = new AgentStateBuilder(s);
    b.calls = s.calls().withoutSend(sendId);
    if (dead != null) {
      List<DeadLetter> deadLetters = new ArrayList<>(s.deadLetters());
      deadLetters.add(dead);
      b.deadLetters = deadLetters;
    }
    Map<String, String> details = new LinkedHashMap<>();
    details.put("to", item.get().targetKey());
    details.put("reason", reason);
    if (item.get().call() != null) {
      details.put("callId", item.get().call().callId());
    }
    return b.build().recorded("send.undeliverable", at, details);
  }

  /**
   * Call {@code callId} has its reply ({@code status}): into the inbox now, or held until its group
   * has all of its replies.
   */
  public static AgentState resolved(
      AgentState s, String callId, String status, Notification reply, Instant at) {
    CallBook.Resolution resolution = s.calls().resolved(callId, reply);
    AgentStateBuilder b = new AgentStateBuilder(s);
    b.calls = resolution.book();
    if (!resolution.toInbox().isEmpty()) {
      List<Notification> inbox = new ArrayList<>(s.inbox());
      inbox.addAll(resolution.toInbox());
      b.inbox = inbox;
    }
    return b.build().recorded(historyType(status), at, Map.of("callId", callId));
  }

  /** A reply came after its call was over (timed out): kept in the history only. */
  public static AgentState lateReply(AgentState s, String callId, String status, Instant at) {
    return s.recorded("call.reply_late", at, Map.of("callId", callId, "status", status));
  }

  /** The history's and the events stream's name of a reply of {@code status}. */
  public static String historyType(String status) {
    return switch (status) {
      case Replies.ANSWERED -> "call.answered";
      case Replies.TIMED_OUT -> "call.timed-out";
      default -> "call.failed";
    };
  }

  private static AgentState with(AgentState s, CallBook book) {
    AgentStateBuilder b = new AgentStateBuilder(s);
    b.calls = book;
    return b.build();
  }
}
