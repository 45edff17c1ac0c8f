package dev.rota.http.api;

import dev.rota.core.model.ClaimSpec;
import dev.rota.core.model.RunnerMode;
import dev.rota.core.tenant.Tenants;
import dev.rota.http.ApiException;
import java.time.Duration;
import java.util.List;
import java.util.Set;

/**
 * The body of {@code POST /v1/claims}. Only {@code runnerId} is required; {@code mode} is read as
 * text so that an unknown mode is a 400 naming the field rather than the default.
 */
public record ClaimRequest(
    String runnerId,
    String mode,
    List<String> capabilities,
    Integer waitSeconds,
    Integer leaseSeconds,
    List<String> tenants) {

  public static final int MAX_RUNNER_ID_LENGTH = 128;
  public static final int MAX_WAIT_SECONDS = 60;
  public static final int MIN_LEASE_SECONDS = 5;
  public static final int MAX_LEASE_SECONDS = 7200;

  public static final int MAX_TENANTS = 64;

  /**
   * The checked claim, its lease length defaulted and its tenants those it names (empty: every
   * tenant its token may serve); a 400 naming the field otherwise.
   */
  public ClaimSpec validated(long defaultLeaseSeconds) {
    if (runnerId == null) {
      throw ApiException.invalid("field 'runnerId' is required");
    }
    Fields.checkText("runnerId", runnerId, MAX_RUNNER_ID_LENGTH);
    RunnerMode runnerMode = mode == null ? RunnerMode.HYBRID : RunnerMode.fromWire(mode);
    if (runnerMode == null) {
      throw ApiException.invalid("field 'mode' must be notification, exploration or hybrid");
    }
    List<String> offered =
        capabilities == null ? List.of() : Fields.checkCapabilities(capabilities);
    int wait = waitSeconds == null ? 0 : waitSeconds;
    Fields.checkRange("waitSeconds", wait, 0, MAX_WAIT_SECONDS);
    long lease = leaseSeconds == null ? defaultLeaseSeconds : leaseSeconds;
    Fields.checkRange("leaseSeconds", lease, MIN_LEASE_SECONDS, MAX_LEASE_SECONDS);
    if (tenants != null && tenants.size() > MAX_TENANTS) {
      throw ApiException.invalid("field 'tenants' may name at most " + MAX_TENANTS + " tenants");
    }
    if (tenants != null) {
      for (String tenant : tenants) {
        if (!Tenants.isValidName(tenant)) {
          throw ApiException.invalid(
              "field 'tenants' must hold tenant names: 1 to 64 characters of a-z, 0-9 and -");
        }
      }
    }
    return new ClaimSpec(
        runnerId,
        runnerMode,
        Set.copyOf(offered),
        Duration.ofSeconds(wait),
        lease,
        tenants == null ? Set.of() : Set.copyOf(tenants));
  }
}
