package dev.rota.core.model;

import com.fasterxml.jackson.annotation.JsonIgnore;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * An agent's side of working with others: its outbox (sends and replies it owes, not yet
 * delivered), its open calls (calls it made, waiting for their replies), and the calls it was made
 * and owes an answer to, deferred by a turn that did not answer them. Immutable; every transition
 * returns a new book.
 *
 * @param owed the calls a completion deferred, in the order they reached the agent; the next
 *     completion that does not defer one answers it
 */
public record CallBook(List<OutboxItem> outbox, List<OpenCall> openCalls, List<CallInfo> owed) {
  private static final CallBook EMPTY = new CallBook(List.of(), List.of(), List.of());

  public CallBook {
    // Snapshots taken before calls (or deferred answers) existed have none.
    outbox = outbox == null ? List.of() : List.copyOf(outbox);
    openCalls = openCalls == null ? List.of() : List.copyOf(openCalls);
    owed = owed == null ? List.of() : List.copyOf(owed);
  }

  public CallBook(List<OutboxItem> outbox, List<OpenCall> openCalls) {
    this(outbox, openCalls, List.of());
  }

  /** The book owing exactly {@code calls} (what a completion left deferred). */
  public CallBook owing(List<CallInfo> calls) {
    return new CallBook(outbox, openCalls, calls);
  }

  public static CallBook empty() {
    return EMPTY;
  }

  @JsonIgnore
  public boolean isEmpty() {
    return outbox.isEmpty() && openCalls.isEmpty() && owed.isEmpty();
  }

  public Optional<OutboxItem> outboxItem(String sendId) {
    return outbox.stream().filter(i -> i.sendId().equals(sendId)).findFirst();
  }

  public Optional<OpenCall> openCall(String callId) {
    return openCalls.stream().filter(c -> c.callId().equals(callId)).findFirst();
  }

  /** The book with {@code items} owed and {@code calls} open. */
  public CallBook sent(List<OutboxItem> items, List<OpenCall> calls) {
    if (items.isEmpty() && calls.isEmpty()) {
      return this;
    }
    List<OutboxItem> newOutbox = new ArrayList<>(outbox);
    newOutbox.addAll(items);
    List<OpenCall> newCalls = new ArrayList<>(openCalls);
    newCalls.addAll(calls);
    return new CallBook(newOutbox, newCalls, owed);
  }

  /** The book without the outbox item {@code sendId} (delivered, or given up). */
  public CallBook withoutSend(String sendId) {
    return new CallBook(
        outbox.stream().filter(i -> !i.sendId().equals(sendId)).toList(), openCalls, owed);
  }

  /** What a reply to an open call does: the book after it, and the replies the inbox gets now. */
  public record Resolution(CallBook book, List<Notification> toInbox) {}

  /**
   * Call {@code callId} has its reply. A call alone gives it to the inbox at once; a call of a
   * group holds it until every call of the group has one, then the group's replies go to the inbox
   * together, in the order the calls were made. A call not open changes nothing.
   */
  public Resolution resolved(String callId, Notification reply) {
    Optional<OpenCall> found = openCall(callId);
    if (found.isEmpty() || found.get().held()) {
      return new Resolution(this, List.of());
    }
    OpenCall call = found.get();
    if (call.group() == null) {
      return new Resolution(withoutCalls(List.of(callId)), List.of(reply));
    }
    List<OpenCall> updated =
        openCalls.stream().map(c -> c.callId().equals(callId) ? c.holding(reply) : c).toList();
    List<OpenCall> group = updated.stream().filter(c -> c.sameGroupAs(call)).toList();
    if (!group.stream().allMatch(OpenCall::held)) {
      return new Resolution(new CallBook(outbox, updated, owed), List.of());
    }
    List<String> ids = group.stream().map(OpenCall::callId).toList();
    List<Notification> replies = group.stream().map(OpenCall::heldReply).toList();
    return new Resolution(new CallBook(outbox, updated, owed).withoutCalls(ids), replies);
  }

  private CallBook withoutCalls(List<String> callIds) {
    return new CallBook(
        outbox, openCalls.stream().filter(c -> !callIds.contains(c.callId())).toList(), owed);
  }

  /** The earliest deadline of a call still waiting for its reply, if any. */
  public Optional<Instant> nextDeadline() {
    return openCalls.stream()
        .filter(c -> !c.held())
        .map(OpenCall::deadline)
        .min(Instant::compareTo);
  }

  /** The calls still waiting whose deadline has passed at {@code now}. */
  public List<OpenCall> overdue(Instant now) {
    return openCalls.stream().filter(c -> !c.held() && !c.deadline().isAfter(now)).toList();
  }

  /** A group whose replies are held: how many of its calls are answered, of how many. */
  public record GroupProgress(String group, int answered, int of) {}

  /** The groups waiting for replies, in the order their first call was made. */
  public List<GroupProgress> waitingGroups() {
    List<GroupProgress> groups = new ArrayList<>();
    List<OpenCall> seen = new ArrayList<>();
    for (OpenCall call : openCalls) {
      if (call.group() == null || seen.stream().anyMatch(s -> s.sameGroupAs(call))) {
        continue;
      }
      seen.add(call);
      List<OpenCall> members = openCalls.stream().filter(c -> c.sameGroupAs(call)).toList();
      int answered = (int) members.stream().filter(OpenCall::held).count();
      groups.add(new GroupProgress(call.group(), answered, members.size()));
    }
    return groups;
  }
}
