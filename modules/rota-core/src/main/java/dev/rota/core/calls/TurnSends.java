package dev.rota.core.calls;

import com.fasterxml.jackson.databind.JsonNode;
import dev.rota.core.model.CallInfo;
import dev.rota.core.model.DeadLetter;
import dev.rota.core.model.Notification;
import dev.rota.core.model.OpenCall;
import dev.rota.core.model.OutboxItem;
import dev.rota.core.model.Replies;
import dev.rota.core.model.Send;
import dev.rota.core.model.TextRules;
import dev.rota.core.model.TextRules.Kind;
import dev.rota.core.model.TextRules.Violation;
import dev.rota.core.tenant.AgentKeys;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.function.Supplier;

/**
 * What a turn that ends owes others, decided once by the agent before it writes the turn's end: the
 * sends of a completion (with the calls they open), the replies to the calls the turn served, and
 * the calls answered at once because they would be too deep. The result is stored in the event that
 * ends the turn, so the sends take effect if and only if the completion does.
 *
 * <p>A send's dedupe key defaults to one derived from the sender and the lease's fencing token
 * (unique per agent) and the item's index, never from the lease id, which is its runner's secret.
 */
public final class TurnSends {
  private TurnSends() {}

  /** A call answered at once, without a delivery: its caller's reply is {@code payload}. */
  public record Immediate(String callId, String status, JsonNode payload) {}

  /**
   * The outbox items, the calls opened, the calls answered at once, and the calls the agent still
   * owes after the turn (those it deferred).
   */
  public record Plan(
      List<OutboxItem> items,
      List<OpenCall> calls,
      List<Immediate> immediate,
      List<CallInfo> owed) {
    public static final Plan NONE = new Plan(List.of(), List.of(), List.of(), List.of());

    public boolean isEmpty() {
      return items.isEmpty() && calls.isEmpty() && immediate.isEmpty() && owed.isEmpty();
    }
  }

  /**
   * Why a completion's {@code defer} list cannot be honoured: an item naming a call the agent
   * neither owes nor carries in this turn, or naming one twice ({@code defer[1]: ...}); empty when
   * every item names a call it may defer.
   */
  public static Optional<String> badDefer(
      List<String> defer, List<CallInfo> owed, List<Notification> carried) {
    Set<String> answerable = new HashSet<>();
    owed.forEach(c -> answerable.add(c.callId()));
    carried.stream().filter(n -> n.call() != null).forEach(n -> answerable.add(n.call().callId()));
    Set<String> seen = new HashSet<>();
    for (int i = 0; i < defer.size(); i++) {
      String callId = defer.get(i);
      if (!answerable.contains(callId)) {
        return Optional.of(
            "defer[" + i + "]: the agent owes no call " + callId + " (neither carried nor owed)");
      }
      if (!seen.add(callId)) {
        return Optional.of("defer[" + i + "]: call " + callId + " is named twice");
      }
    }
    return Optional.empty();
  }

  /** A completion that defers nothing, of an agent that owes nothing from earlier turns. */
  public static Plan completion(
      String senderKey,
      String leaseId,
      long fencingToken,
      List<Notification> carried,
      List<Send> sends,
      JsonNode result,
      int maxDepth,
      Instant now,
      Supplier<String> newCallId) {
    return completion(
        senderKey,
        leaseId,
        fencingToken,
        carried,
        List.of(),
        List.of(),
        sends,
        result,
        maxDepth,
        now,
        newCallId);
  }

  /**
   * What the completion of lease {@code leaseId} (fencing token {@code fencingToken}) of agent
   * {@code senderKey} owes: its {@code sends}, and for each call it carried or owed from an earlier
   * turn ({@code owed}) and does not {@code defer}, an answered reply carrying {@code result}. The
   * deferred ones stay owed ({@link Plan#owed()}: the earlier ones first, then the carried ones).
   * Its calls are one deeper than the deepest call it carried or owes. {@code defer} is checked
   * first ({@link #badDefer}).
   */
  public static Plan completion(
      String senderKey,
      String leaseId,
      long fencingToken,
      List<Notification> carried,
      List<CallInfo> owed,
      List<String> defer,
      List<Send> sends,
      JsonNode result,
      int maxDepth,
      Instant now,
      Supplier<String> newCallId) {
    String tenant = AgentKeys.tenantOf(senderKey);
    CallInfo.Party me = new CallInfo.Party(tenant, AgentKeys.agentIdOf(senderKey));
    List<CallInfo> served = new ArrayList<>(owed);
    carried.stream().filter(n -> n.call() != null).forEach(n -> served.add(n.call()));
    int depth = 1 + served.stream().mapToInt(CallInfo::depth).max().orElse(0);
    List<OutboxItem> items = new ArrayList<>();
    List<OpenCall> calls = new ArrayList<>();
    List<Immediate> immediate = new ArrayList<>();
    for (int i = 0; i < sends.size(); i++) {
      Send send = sends.get(i);
      String dedupeKey =
          send.dedupeKey() != null
              ? send.dedupeKey()
              : "rota.send:" + me.agentId() + ":" + fencingToken + ":" + i;
      CallInfo call = null;
      if (send.call() != null) {
        String callId = newCallId.get();
        call = new CallInfo(callId, me, depth);
        calls.add(
            new OpenCall(
                callId,
                send.agentId(),
                leaseId,
                send.call().group(),
                now,
                now.plusSeconds(send.call().timeoutSeconds()),
                null));
        if (depth > maxDepth) {
          immediate.add(
              new Immediate(
                  callId,
                  Replies.FAILED,
                  Replies.failed(
                      callId,
                      new CallInfo.Party(tenant, send.agentId()),
                      Replies.FAILED,
                      Replies.DEPTH_EXCEEDED,
                      "the call would be "
                          + depth
                          + " deep, past rota.calls.max-depth "
                          + maxDepth)));
          continue;
        }
      }
      items.add(
          new OutboxItem(
              "s" + fencingToken + "-" + i,
              AgentKeys.key(tenant, send.agentId()),
              send.type(),
              send.payload(),
              dedupeKey,
              send.newInput(),
              call,
              null,
              null,
              now));
    }
    for (Notification n : carried) {
      if (n.call() != null && !defer.contains(n.call().callId())) {
        items.add(
            reply(
                "r" + fencingToken + "-" + n.notificationId(),
                n.call(),
                Replies.ANSWERED,
                Replies.answered(n.call().callId(), me, result),
                now));
      }
    }
    for (CallInfo call : owed) {
      if (!defer.contains(call.callId())) {
        items.add(
            reply(
                "r" + fencingToken + "-" + call.callId(),
                call,
                Replies.ANSWERED,
                Replies.answered(call.callId(), me, result),
                now));
      }
    }
    List<CallInfo> stillOwed = served.stream().filter(c -> defer.contains(c.callId())).toList();
    return new Plan(List.copyOf(items), List.copyOf(calls), List.copyOf(immediate), stillOwed);
  }

  /**
   * The failed replies owed for notifications that became dead letters and were calls: their
   * callers hear that the call failed, with the dead letter's reason.
   */
  public static List<OutboxItem> deadLettered(
      String senderKey, List<DeadLetter> dead, Instant now) {
    CallInfo.Party me =
        new CallInfo.Party(AgentKeys.tenantOf(senderKey), AgentKeys.agentIdOf(senderKey));
    List<OutboxItem> items = new ArrayList<>();
    for (DeadLetter d : dead) {
      CallInfo call = d.notification().call();
      if (call != null) {
        items.add(
            reply(
                "f-" + d.notification().notificationId(),
                call,
                Replies.FAILED,
                Replies.failed(call.callId(), me, Replies.FAILED, "dead_letter", d.reason()),
                now));
      }
    }
    return List.copyOf(items);
  }

  /**
   * The failed replies owed for unread notifications that were calls and will never be served
   * ({@code reason}: the agent was deleted).
   */
  public static List<OutboxItem> abandoned(
      String agentKey, List<Notification> unread, String reason, Instant now) {
    CallInfo.Party me =
        new CallInfo.Party(AgentKeys.tenantOf(agentKey), AgentKeys.agentIdOf(agentKey));
    List<OutboxItem> items = new ArrayList<>();
    for (Notification n : unread) {
      if (n.call() != null) {
        items.add(
            reply(
                "a-" + n.notificationId(),
                n.call(),
                Replies.FAILED,
                Replies.failed(
                    n.call().callId(), me, Replies.FAILED, reason, "the agent was deleted"),
                now));
      }
    }
    return List.copyOf(items);
  }

  /**
   * The failed replies owed for calls the agent deferred and will never answer ({@code reason}: the
   * agent was deleted).
   */
  public static List<OutboxItem> abandonedOwed(
      String agentKey, List<CallInfo> owed, String reason, Instant now) {
    CallInfo.Party me =
        new CallInfo.Party(AgentKeys.tenantOf(agentKey), AgentKeys.agentIdOf(agentKey));
    return owed.stream()
        .map(
            call ->
                reply(
                    "a-" + call.callId(),
                    call,
                    Replies.FAILED,
                    Replies.failed(
                        call.callId(), me, Replies.FAILED, reason, "the agent was deleted"),
                    now))
        .toList();
  }

  /** Where a reply to {@code call} goes: its calling agent, or the call's own record. */
  public static String callerKey(CallInfo call) {
    return call.from().agentId() == null
        ? call.callId()
        : AgentKeys.key(call.from().tenant(), call.from().agentId());
  }

  private static OutboxItem reply(
      String sendId, CallInfo call, String status, JsonNode payload, Instant now) {
    return new OutboxItem(
        sendId,
        callerKey(call),
        Replies.TYPE,
        payload,
        "rota.reply:" + call.callId(),
        null,
        null,
        call.callId(),
        status,
        now);
  }

  /**
   * The first string of the sends that the journal could not hold, named as the request names it
   * ({@code send[2].payload.text}); empty when all are fine.
   */
  public static Optional<Violation> unstorable(List<Send> sends) {
    for (int i = 0; i < sends.size(); i++) {
      Send s = sends.get(i);
      String at = "send[" + i + "].";
      Optional<Violation> bad =
          TextRules.check(at + "agentId", s.agentId(), Kind.NAME)
              .or(() -> TextRules.check(at + "type", s.type(), Kind.NAME))
              .or(() -> TextRules.check(at + "dedupeKey", s.dedupeKey(), Kind.NAME))
              .or(() -> TextRules.firstViolation(s.payload(), at + "payload", Kind.TEXT));
      if (bad.isPresent()) {
        return bad;
      }
    }
    return Optional.empty();
  }
}
