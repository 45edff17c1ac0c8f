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
import java.util.List;
import java.util.Optional;
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

  /** The outbox items, the calls opened, and the calls answered at once. */
  public record Plan(List<OutboxItem> items, List<OpenCall> calls, List<Immediate> immediate) {
    public static final Plan NONE = new Plan(List.of(), List.of(), List.of());

    public boolean isEmpty() {
      return items.isEmpty() && calls.isEmpty() && immediate.isEmpty();
    }
  }

  /**
   * What the completion of lease {@code leaseId} (fencing token {@code fencingToken}) of agent
   * {@code senderKey} owes: its {@code sends}, and for each notification it carried that is a call,
   * an answered reply carrying {@code result}.
   */
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
    String tenant = AgentKeys.tenantOf(senderKey);
    CallInfo.Party me = new CallInfo.Party(tenant, AgentKeys.agentIdOf(senderKey));
    int depth =
        1
            + carried.stream()
                .filter(n -> n.call() != null)
                .mapToInt(n -> n.call().depth())
                .max()
                .orElse(0);
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
      if (n.call() != null) {
        items.add(
            reply(
                "r" + fencingToken + "-" + n.notificationId(),
                n.call(),
                Replies.ANSWERED,
                Replies.answered(n.call().callId(), me, result),
                now));
      }
    }
    return new Plan(List.copyOf(items), List.copyOf(calls), List.copyOf(immediate));
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
