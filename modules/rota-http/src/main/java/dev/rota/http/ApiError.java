package dev.rota.http;

/**
 * The error codes of docs/api.md with their status. The code is the {@code error} field of every
 * error body; the status is what a client branches on. 405 (a method not served) is always answered
 * as {@code method_not_allowed} with an {@code Allow} header, in the same JSON shape.
 */
public enum ApiError {
  INVALID(400, "invalid"),
  UNAUTHENTICATED(401, "unauthenticated"),
  FORBIDDEN(403, "forbidden"),
  NOT_FOUND(404, "not_found"),
  METHOD_NOT_ALLOWED(405, "method_not_allowed"),
  CONFLICT(409, "conflict"),
  LEASE_NOT_HELD(409, "lease_not_held"),
  /** The agent refuses new input while a turn runs ({@code newInput: reject}). */
  TURN_IN_PROGRESS(409, "turn_in_progress"),
  LEASE_LOST(410, "lease_lost"),
  /** Events asked for that retention removed (decision 124). */
  GONE(410, "gone"),
  TOO_LARGE(413, "too_large"),
  UNSUPPORTED_MEDIA_TYPE(415, "unsupported_media_type"),
  INBOX_FULL(429, "inbox_full"),
  INTERNAL(500, "internal"),
  UNAVAILABLE(503, "unavailable");

  private final int status;
  private final String code;

  ApiError(int status, String code) {
    this.status = status;
    this.code = code;
  }

  public int status() {
    return status;
  }

  public String code() {
    return code;
  }

  /** Whether the answer carries {@code Retry-After}: the client should simply try again later. */
  public boolean retryable() {
    return this == INBOX_FULL || this == UNAVAILABLE || this == TURN_IN_PROGRESS;
  }

  /** The code for a status that some other layer (e.g. Pekko's defaults) chose. */
  public static ApiError ofStatus(int status) {
    for (ApiError error : values()) {
      if (error.status == status) {
        return error;
      }
    }
    if (status >= 500) {
      return INTERNAL;
    }
    return INVALID;
  }
}
