package dev.rota.http.api;

import dev.rota.core.model.ClaimSpec;
import dev.rota.http.ApiException;
import java.util.List;

/**
 * The {@code next} of a completion or failure report: the claim the runner makes as soon as its
 * report is durable, answered in the same response (docs/api.md, "Complete and claim again"). Its
 * fields are the claim's ({@link ClaimRequest}); the runner is the lease's and the tenants are all
 * those the caller's token may serve.
 */
public record NextClaim(
    String mode, List<String> capabilities, Integer waitSeconds, Integer leaseSeconds) {

  /** The checked claim of runner {@code runnerId}; a 400 naming the field otherwise. */
  public ClaimSpec validated(String runnerId, long defaultLeaseSeconds) {
    try {
      return new ClaimRequest(runnerId, mode, capabilities, waitSeconds, leaseSeconds, null)
          .validated(defaultLeaseSeconds);
    } catch (ApiException e) {
      throw ApiException.invalid("in 'next': " + e.getMessage());
    }
  }
}
