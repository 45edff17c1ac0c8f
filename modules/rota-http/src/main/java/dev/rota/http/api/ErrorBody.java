package dev.rota.http.api;

import com.fasterxml.jackson.annotation.JsonInclude;

/**
 * Every error answer: {@code {"error": "<code>", "message": "<human sentence>"}}.
 *
 * @param error a code of docs/api.md, e.g. {@code invalid}, {@code not_found}
 * @param reason why, in one word, where the code alone does not say (a lease lost because it was
 *     {@code interrupted}); absent otherwise
 * @param oldestRetainedId with 410 {@code gone} only: the id of the oldest event the events stream
 *     still holds (resume with {@code since} one below it); absent otherwise
 */
public record ErrorBody(
    String error,
    String message,
    @JsonInclude(JsonInclude.Include.NON_NULL) String reason,
    @JsonInclude(JsonInclude.Include.NON_NULL) String oldestRetainedId) {
  public ErrorBody(String error, String message) {
    this(error, message, null, null);
  }

  public ErrorBody(String error, String message, String reason) {
    this(error, message, reason, null);
  }
}
