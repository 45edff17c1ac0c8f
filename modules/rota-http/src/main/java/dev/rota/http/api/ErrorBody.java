package dev.rota.http.api;

import com.fasterxml.jackson.annotation.JsonInclude;

/**
 * Every error answer: {@code {"error": "<code>", "message": "<human sentence>"}}.
 *
 * @param error a code of docs/api.md, e.g. {@code invalid}, {@code not_found}
 * @param reason why, in one word, where the code alone does not say (a lease lost because it was
 *     {@code interrupted}); absent otherwise
 */
public record ErrorBody(
    String error, String message, @JsonInclude(JsonInclude.Include.NON_NULL) String reason) {
  public ErrorBody(String error, String message) {
    this(error, message, null);
  }
}
