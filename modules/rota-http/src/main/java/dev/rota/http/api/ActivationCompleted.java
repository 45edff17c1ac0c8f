package dev.rota.http.api;

import com.fasterxml.jackson.annotation.JsonInclude;
import java.time.Instant;

/**
 * The answer to a completion: the carried notifications are read as of {@code completedAt}.
 *
 * @param next the answer of the claim the report carried, when it carried one
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
public record ActivationCompleted(Instant completedAt, ClaimResponse next) {
  public ActivationCompleted(Instant completedAt) {
    this(completedAt, null);
  }
}
