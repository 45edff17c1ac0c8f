package dev.rota.faults.history;

import com.fasterxml.jackson.annotation.JsonSubTypes;
import com.fasterxml.jackson.annotation.JsonTypeInfo;
import java.util.List;

/**
 * One thing the fault suite saw happen, as the clients saw it. Client times are epoch milliseconds
 * of the suite's clock ({@code startMs} when the request was sent, {@code endMs} when its answer or
 * failure came back); server times ({@code grantedAt}, {@code expiresAt}) are the node's, on the
 * same machine. The checker reads nothing else: a history written to a file can be checked again
 * later.
 */
@JsonTypeInfo(use = JsonTypeInfo.Id.NAME, property = "event")
@JsonSubTypes({
  @JsonSubTypes.Type(value = Event.Published.class, name = "published"),
  @JsonSubTypes.Type(value = Event.Granted.class, name = "granted"),
  @JsonSubTypes.Type(value = Event.Renewed.class, name = "renewed"),
  @JsonSubTypes.Type(value = Event.CompleteAttempt.class, name = "complete"),
  @JsonSubTypes.Type(value = Event.Fault.class, name = "fault"),
  @JsonSubTypes.Type(value = Event.DeadLetter.class, name = "dead-letter"),
  @JsonSubTypes.Type(value = Event.FinalInbox.class, name = "final-inbox"),
  @JsonSubTypes.Type(value = Event.Placement.class, name = "placement"),
  @JsonSubTypes.Type(value = Event.ClockSkew.class, name = "clock-skew"),
  @JsonSubTypes.Type(value = Event.Steered.class, name = "steered"),
  @JsonSubTypes.Type(value = Event.Interrupted.class, name = "interrupted"),
  @JsonSubTypes.Type(value = Event.Sent.class, name = "sent"),
  @JsonSubTypes.Type(value = Event.Carried.class, name = "carried"),
})
public sealed interface Event {

  /** When it happened (for ordering a history): the client time the request was sent. */
  long at();

  /** How a request ended, seen from the client. */
  enum Outcome {
    /** 2xx: the server acknowledged it. */
    OK,
    /** 410: the lease was lost (expired or superseded); the server refused the report. */
    LOST,
    /** Anything else (refused connection, timeout, 5xx): not acknowledged, perhaps applied. */
    FAILED,
    /**
     * 409 {@code turn_in_progress} to a publish ({@code newInput: reject} while a turn ran): an
     * answer, not a failure; nothing was stored, so the key is not acknowledged by it.
     */
    REJECTED
  }

  /**
   * A producer's attempt to publish the notification with dedupe key {@code key} (its payload also
   * carries the key, so grants show which notifications they carry).
   */
  record Published(
      String agentId,
      String key,
      int node,
      long startMs,
      long endMs,
      Outcome outcome,
      String notificationId,
      String detail)
      implements Event {
    /** In {@code detail}: the answer said the notification joined the running turn. */
    public static final String STEERED = "steered";

    /** In {@code detail}: the answer said the notification interrupted the running turn. */
    public static final String INTERRUPTED = "interrupted";

    /** In {@code detail}: the answer said the key matched an earlier notification (its id). */
    public static final String DUPLICATE = "duplicate";

    /** In {@code detail}, followed by the policy: the notification carried its own newInput. */
    public static final String NEW_INPUT = "newInput=";

    @Override
    public long at() {
      return startMs;
    }
  }

  /** A claim answered {@code assigned}: the lease and the notification keys it carries. */
  record Granted(
      String runnerId,
      int node,
      String leaseId,
      String agentId,
      long grantedAt,
      long expiresAt,
      List<String> keys,
      long startMs,
      long endMs)
      implements Event {
    @Override
    public long at() {
      return startMs;
    }
  }

  /** A heartbeat; {@code expiresAt} is the new expiry when it succeeded. */
  record Renewed(String leaseId, long startMs, long endMs, Outcome outcome, long expiresAt)
      implements Event {
    @Override
    public long at() {
      return startMs;
    }
  }

  /** One attempt to complete a lease. */
  record CompleteAttempt(
      String leaseId, String agentId, int node, long startMs, long endMs, Outcome outcome)
      implements Event {
    @Override
    public long at() {
      return startMs;
    }
  }

  /**
   * A fault and its phases: {@code injected} (the moment the fault starts), {@code healed}, {@code
   * exited} (a node process ended; {@code detail} holds its exit status).
   */
  record Fault(String kind, String phase, int node, long atMs, String detail) implements Event {
    public static final String INJECTED = "injected";
    public static final String HEALED = "healed";
    public static final String EXITED = "exited";

    @Override
    public long at() {
      return atMs;
    }
  }

  /** At the end: a notification found among the dead letters. */
  record DeadLetter(String agentId, String key, long atMs) implements Event {
    @Override
    public long at() {
      return atMs;
    }
  }

  /** At the end, after draining: what an agent still had unread, and whether it was leased. */
  record FinalInbox(String agentId, int unread, boolean leased, long atMs) implements Event {
    @Override
    public long at() {
      return atMs;
    }
  }

  /**
   * Just before a fault: the agents whose shards node {@code node} hosted, as its Pekko Management
   * ({@code /cluster/shards/Agent}) reported them. The checker splits a fault's waits into those of
   * the faulty node's agents and those of every other agent.
   */
  record Placement(int node, List<String> agents, long atMs) implements Event {
    @Override
    public long at() {
      return atMs;
    }
  }

  /**
   * The runner of lease {@code leaseId} was given notifications steered into its turn (by the input
   * long poll or a heartbeat's answer, {@code newInput: steer}): the lease carries their keys from
   * then on, as if granted with them.
   */
  record Steered(String leaseId, List<String> keys, long atMs) implements Event {
    @Override
    public long at() {
      return atMs;
    }
  }

  /**
   * The runner of lease {@code leaseId} learned that new input interrupted it ({@code newInput:
   * interrupt}): the lease ended then, its keys unread again; no completion of it may be accepted.
   */
  record Interrupted(String leaseId, long atMs) implements Event {
    @Override
    public long at() {
      return atMs;
    }
  }

  /**
   * Node {@code node}'s wall clock ran {@code offsetMs} off the machine's for the whole run
   * (libfaketime). Its server times ({@code grantedAt}, {@code expiresAt}) are then on its own
   * clock; the checker maps each back to the machine's clock before comparing it with anything.
   */
  record ClockSkew(int node, long offsetMs, long atMs) implements Event {
    @Override
    public long at() {
      return atMs;
    }
  }

  /**
   * What a lease's completion sends, recorded once before its first attempt (every retry sends the
   * same items; the server derives each item's dedupe key from the lease and its index). Each item
   * is known by the key {@code k} of its payload, unique in the run; the lease's {@link
   * CompleteAttempt}s say whether the sends took effect.
   */
  record Sent(String leaseId, String agentId, List<Send> sends, long atMs) implements Event {
    /**
     * One send: its payload's key, its target, whether it is a call, and the call's group (null:
     * none).
     */
    public record Send(String key, String target, boolean call, String group) {}

    @Override
    public long at() {
      return atMs;
    }
  }

  /**
   * What a grant carried of agents working together, recorded with the {@link Granted} it belongs
   * to: the calls its turn answers (the send's key, the server's {@code callId}, the caller, the
   * depth) and the replies it brings ({@code rota.reply}: the call it answers, who answered, the
   * status).
   */
  record Carried(String leaseId, String agentId, List<Call> calls, List<Reply> replies, long atMs)
      implements Event {
    /** A carried notification that is a call: the target's view of it. */
    public record Call(String key, String callId, String from, int depth) {}

    /**
     * A carried {@code rota.reply}; {@code reason} and {@code message} are its error's ({@code
     * undeliverable}, {@code depth_exceeded}, ...), null when it has none.
     */
    public record Reply(String callId, String from, String status, String reason, String message) {
      public Reply(String callId, String from, String status) {
        this(callId, from, status, null, null);
      }
    }

    @Override
    public long at() {
      return atMs;
    }
  }
}
