package dev.rota.client;

import java.time.Duration;
import java.util.Optional;

/**
 * A request Rota refused, or one that never got an answer. Every error body of the API ({@code
 * {"error": "<code>", "message": "..."}}) becomes the subclass of its code, so callers catch what
 * they can handle:
 *
 * <pre>{@code
 * try {
 *   client.notify("a1", Notification.of("mention").dedupeKey("p9"));
 * } catch (RotaException.InboxFull e) {
 *   // back off for e.retryAfter()
 * } catch (RotaException.NotFound e) {
 *   // register the agent first
 * }
 * }</pre>
 *
 * <p>{@link #status()} is the HTTP status, 0 for {@link Connection} (no answer at all).
 */
public class RotaException extends RuntimeException {
  private final int status;
  private final String code;
  private final Duration retryAfter;

  RotaException(int status, String code, String message, Duration retryAfter, Throwable cause) {
    super(message, cause);
    this.status = status;
    this.code = code;
    this.retryAfter = retryAfter;
  }

  /** The HTTP status; 0 when no answer arrived ({@link Connection}). */
  public int status() {
    return status;
  }

  /** The API's error code ({@code invalid}, {@code not_found}, ...); {@code connection} for I/O. */
  public String code() {
    return code;
  }

  /** The server's {@code Retry-After}, when it sent one (429 and 503). */
  public Optional<Duration> retryAfter() {
    return Optional.ofNullable(retryAfter);
  }

  /** Builds the exception for an error answer. */
  static RotaException of(int status, String code, String message, Duration retryAfter) {
    return of(status, code, message, retryAfter, null);
  }

  /** {@link #of} with the body's {@code reason} (410 after an interrupt: {@code interrupted}). */
  static RotaException of(
      int status, String code, String message, Duration retryAfter, String reason) {
    String text = status + " " + code + ": " + message;
    if (status == 410) {
      return new LeaseLost(text, reason);
    }
    if (status == 409 && "turn_in_progress".equals(code)) {
      return new TurnInProgress(text, retryAfter);
    }
    return switch (status) {
      case 400 -> new Invalid(text);
      case 401 -> new Unauthenticated(text);
      case 403 -> new Forbidden(text);
      case 404 -> new NotFound(text);
      case 405 -> new RotaException(status, code, text, null, null);
      case 409 -> "lease_not_held".equals(code) ? new LeaseNotHeld(text) : new Conflict(text);
      case 410 -> new LeaseLost(text);
      case 413, 414, 431 -> new TooLarge(status, text);
      case 429 -> new InboxFull(text, retryAfter);
      case 503 -> new Unavailable(text, retryAfter);
      default -> new RotaException(status, code, text, retryAfter, null);
    };
  }

  /** 400 {@code invalid}: the message names the field. */
  public static final class Invalid extends RotaException {
    Invalid(String message) {
      super(400, "invalid", message, null, null);
    }
  }

  /** 401 {@code unauthenticated}: no token, or an unknown one. */
  public static final class Unauthenticated extends RotaException {
    Unauthenticated(String message) {
      super(401, "unauthenticated", message, null, null);
    }
  }

  /** 403 {@code forbidden}: the token lacks the role. */
  public static final class Forbidden extends RotaException {
    Forbidden(String message) {
      super(403, "forbidden", message, null, null);
    }
  }

  /** 404 {@code not_found}: unknown agent, lease, dead letter or path. */
  public static final class NotFound extends RotaException {
    NotFound(String message) {
      super(404, "not_found", message, null, null);
    }
  }

  /** 409 {@code conflict}, e.g. deleting an agent that holds a lease. */
  public static final class Conflict extends RotaException {
    Conflict(String message) {
      super(409, "conflict", message, null, null);
    }
  }

  /**
   * 409 {@code lease_not_held}: the lease was granted to another runner than the one reporting; the
   * report changed nothing. A runner that reports with the id it claimed with never gets it.
   */
  public static final class LeaseNotHeld extends RotaException {
    LeaseNotHeld(String message) {
      super(409, "lease_not_held", message, null, null);
    }
  }

  /**
   * 410 {@code gone}: the journal's retention removed the events after the position an event stream
   * asked for. {@link #oldestRetainedId()} is the oldest event id still held: resume after the id
   * one below it (what was removed is not served again), or from now.
   */
  public static final class Gone extends RotaException {
    private final String oldestRetainedId;

    Gone(String message, String oldestRetainedId) {
      super(410, "gone", message, null, null);
      this.oldestRetainedId = oldestRetainedId;
    }

    /** The oldest event id the stream still holds; empty if the server did not say. */
    public Optional<String> oldestRetainedId() {
      return Optional.ofNullable(oldestRetainedId);
    }
  }

  /**
   * 410 {@code lease_lost}: the lease expired or was superseded. The runner must stop and must not
   * report the activation again.
   */
  public static final class LeaseLost extends RotaException {
    private final String reason;

    LeaseLost(String message) {
      this(message, null);
    }

    LeaseLost(String message, String reason) {
      super(410, "lease_lost", message, null, null);
      this.reason = reason;
    }

    /** Why, when the server said: {@code interrupted} when new input ended the lease. */
    public String reason() {
      return reason;
    }

    /** Whether new input ended the lease ({@code newInput: interrupt}). */
    public boolean interrupted() {
      return "interrupted".equals(reason);
    }
  }

  /**
   * 409 {@code turn_in_progress}: the agent (or the notification) refuses new input while a turn
   * runs ({@code newInput: reject}); nothing was stored. Send it again after {@link #retryAfter()}.
   */
  public static final class TurnInProgress extends RotaException {
    TurnInProgress(String message, Duration retryAfter) {
      super(409, "turn_in_progress", message, retryAfter, null);
    }
  }

  /** 413, 414 or 431 {@code too_large}: body, URI or headers over the server's limits. */
  public static final class TooLarge extends RotaException {
    TooLarge(int status, String message) {
      super(status, "too_large", message, null, null);
    }
  }

  /** 429 {@code inbox_full}: the agent's inbox is at {@code maxInboxDepth}. */
  public static final class InboxFull extends RotaException {
    InboxFull(String message, Duration retryAfter) {
      super(429, "inbox_full", message, retryAfter, null);
    }
  }

  /** 503 {@code unavailable}: store or cluster not ready; nothing was accepted. */
  public static final class Unavailable extends RotaException {
    Unavailable(String message, Duration retryAfter) {
      super(503, "unavailable", message, retryAfter, null);
    }
  }

  /** No answer: the connection failed or timed out. Whether the request took effect is unknown. */
  public static final class Connection extends RotaException {
    private final boolean sent;

    Connection(String message, boolean sent, Throwable cause) {
      super(0, "connection", message, null, cause);
      this.sent = sent;
    }

    /**
     * False when the request provably never reached the server (the connection could not be
     * opened), so retrying cannot duplicate it.
     */
    public boolean requestSent() {
      return sent;
    }
  }
}
