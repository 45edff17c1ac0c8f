package dev.rota.http.api;

import dev.rota.core.model.RunnerMode;
import dev.rota.http.ApiException;
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
    Integer leaseSeconds) {

  public static final int MAX_RUNNER_ID_LENGTH = 128;
  public static final int MAX_WAIT_SECONDS = 60;
  public static final int MIN_LEASE_SECONDS = 5;
  public static final int MAX_LEASE_SECONDS = 7200;

  /**
   * A claim with every field checked and defaulted.
   *
   * @param leaseSeconds the lease length, already defaulted
   */
  public record Claim(
      String runnerId,
      RunnerMode mode,
      Set<String> capabilities,
      int waitSeconds,
      long leaseSeconds) {}

  /** The checked claim; a 400 naming the field otherwise. */
  public Claim validated(long defaultLeaseSeconds) {
    if (runnerId == null) {
      throw ApiException.invalid("runnerId is required");
    }
    if (runnerId.isBlank() || runnerId.length() > MAX_RUNNER_ID_LENGTH) {
      throw ApiException.invalid(
          "runnerId must be 1 to " + MAX_RUNNER_ID_LENGTH + " characters, not blank");
    }
    if (runnerId.chars().anyMatch(Character::isISOControl)) {
      throw ApiException.invalid("runnerId must not contain control characters");
    }
    RunnerMode runnerMode = mode == null ? RunnerMode.HYBRID : RunnerMode.fromWire(mode);
    if (runnerMode == null) {
      throw ApiException.invalid("mode must be notification, exploration or hybrid");
    }
    List<String> offered = capabilities == null ? List.of() : capabilities;
    for (int i = 0; i < offered.size(); i++) {
      if (offered.get(i) == null || offered.get(i).isBlank()) {
        throw ApiException.invalid("capabilities[" + i + "] must be a non-blank string");
      }
    }
    int wait = waitSeconds == null ? 0 : waitSeconds;
    checkRange("waitSeconds", wait, 0, MAX_WAIT_SECONDS);
    long lease = leaseSeconds == null ? defaultLeaseSeconds : leaseSeconds;
    checkRange("leaseSeconds", lease, MIN_LEASE_SECONDS, MAX_LEASE_SECONDS);
    return new Claim(runnerId, runnerMode, Set.copyOf(offered), wait, lease);
  }

  private static void checkRange(String field, long value, long min, long max) {
    if (value < min || value > max) {
      throw ApiException.invalid(
          field + " must be between " + min + " and " + max + ", not " + value);
    }
  }
}
