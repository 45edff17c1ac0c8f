package dev.rota.http;

/**
 * A request that cannot be served, with the answer it deserves. Routes throw it; {@link ApiErrors}
 * turns it into the JSON error body, so no route builds an error response by hand. It carries no
 * stack trace: it is a normal outcome, not a bug.
 */
public final class ApiException extends RuntimeException {
  private final ApiError error;

  public ApiException(ApiError error, String message) {
    super(message, null, false, false);
    this.error = error;
  }

  public ApiError error() {
    return error;
  }

  public static ApiException invalid(String message) {
    return new ApiException(ApiError.INVALID, message);
  }

  public static ApiException notFound(String message) {
    return new ApiException(ApiError.NOT_FOUND, message);
  }

  public static ApiException unavailable(String message) {
    return new ApiException(ApiError.UNAVAILABLE, message);
  }
}
