package dev.rota.http;

/**
 * A request that cannot be served, with the answer it deserves. Routes throw it; {@link ApiErrors}
 * turns it into the JSON error body, so no route builds an error response by hand. It carries no
 * stack trace: it is a normal outcome, not a bug.
 */
public final class ApiException extends RuntimeException {
  private final ApiError error;
  private final String reason;
  private final Integer retryAfterSeconds;
  private final String oldestRetainedId;

  public ApiException(ApiError error, String message) {
    this(error, message, null);
  }

  /** An error whose body also says why in one word ({@code "reason"}), e.g. {@code interrupted}. */
  public ApiException(ApiError error, String message, String reason) {
    this(error, message, reason, null);
  }

  private ApiException(ApiError error, String message, String reason, Integer retryAfterSeconds) {
    this(error, message, reason, retryAfterSeconds, null);
  }

  private ApiException(
      ApiError error,
      String message,
      String reason,
      Integer retryAfterSeconds,
      String oldestRetainedId) {
    super(message, null, false, false);
    this.error = error;
    this.reason = reason;
    this.retryAfterSeconds = retryAfterSeconds;
    this.oldestRetainedId = oldestRetainedId;
  }

  /** 410 {@code gone}: events after the position asked for were removed by retention. */
  public static ApiException gone(String message, String oldestRetainedId) {
    return new ApiException(ApiError.GONE, message, null, null, oldestRetainedId);
  }

  /** With 410 {@code gone}: the oldest event id still held; null otherwise. */
  public String oldestRetainedId() {
    return oldestRetainedId;
  }

  /**
   * The {@code Retry-After} this answer asks for, when it differs from {@code
   * rota.http.retry-after-seconds}; null otherwise.
   */
  public Integer retryAfterSeconds() {
    return retryAfterSeconds;
  }

  public ApiError error() {
    return error;
  }

  /** The body's {@code reason}; null when the code says enough. */
  public String reason() {
    return reason;
  }

  /** 410 {@code lease_lost} because new input interrupted the lease. */
  public static ApiException interrupted(String message) {
    return new ApiException(ApiError.LEASE_LOST, message, INTERRUPTED);
  }

  /** The {@code reason} of a lease ended by new input. */
  public static final String INTERRUPTED = "interrupted";

  public static ApiException invalid(String message) {
    return new ApiException(ApiError.INVALID, message);
  }

  public static ApiException notFound(String message) {
    return new ApiException(ApiError.NOT_FOUND, message);
  }

  public static ApiException unavailable(String message) {
    return new ApiException(ApiError.UNAVAILABLE, message);
  }

  /** 503 {@code unavailable} that the client may try again after {@code seconds} already. */
  public static ApiException unavailable(String message, int seconds) {
    return new ApiException(ApiError.UNAVAILABLE, message, null, seconds);
  }
}
