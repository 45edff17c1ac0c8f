package dev.rota.http.api;

import com.fasterxml.jackson.annotation.JsonInclude;
import java.time.Instant;

/**
 * The answer to a failure report: what was applied, and when.
 *
 * @param next the answer of the claim the report carried, when it carried one
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
public record ActivationFailed(String action, Instant failedAt, ClaimResponse next) {
  public ActivationFailed(String action, Instant failedAt) {
    this(action, failedAt, null);
  }
}
