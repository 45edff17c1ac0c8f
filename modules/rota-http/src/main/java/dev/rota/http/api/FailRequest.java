package dev.rota.http.api;

import dev.rota.core.model.FailureAction;
import dev.rota.http.ApiException;
import java.util.List;

/**
 * The body of {@code POST /v1/leases/{leaseId}/fail}. {@code action} defaults to {@code retry};
 * {@code snoozeSeconds} (0 to 86400) is required with {@code snooze} and refused with any other
 * action, so that a runner expecting a delay never silently gets none. A snooze of 0 gives the
 * agent back at once without using up an attempt.
 *
 * @param runnerId the runner that claimed the lease
 * @param error what went wrong, for the agent's history and dead letters; optional
 * @param next the claim to make once the failure is durable, answered beside it; optional
 * @param inputSeen the runner's cursor on new input, as for {@link CompleteRequest}; optional
 */
public record FailRequest(
    String runnerId,
    String error,
    String action,
    Long snoozeSeconds,
    NextClaim next,
    List<String> inputSeen) {
  public static final long MAX_SNOOZE_SECONDS = 86_400;
  public static final int MAX_ERROR_LENGTH = 4096;
  public static final String NO_ERROR = "no error given";

  /** A failure with every field checked and defaulted. */
  public record Failure(FailureAction action, String error, long snoozeSeconds) {}

  /** The cursor on new input, null when absent; a 400 naming the item otherwise. */
  public List<String> validatedInputSeen() {
    return Fields.checkInputSeen(inputSeen);
  }

  /** The checked failure; a 400 naming the field otherwise. */
  public Failure validated() {
    if (error != null && error.length() > MAX_ERROR_LENGTH) {
      throw ApiException.invalid(
          "field 'error' must be at most "
              + MAX_ERROR_LENGTH
              + " characters, not "
              + error.length());
    }
    FailureAction failureAction =
        action == null ? FailureAction.RETRY : FailureAction.fromWire(action);
    if (failureAction == null) {
      throw ApiException.invalid("field 'action' must be retry, cancel, discard or snooze");
    }
    if (failureAction == FailureAction.SNOOZE) {
      if (snoozeSeconds == null) {
        throw ApiException.invalid("field 'snoozeSeconds' is required with action snooze");
      }
      if (snoozeSeconds < 0 || snoozeSeconds > MAX_SNOOZE_SECONDS) {
        throw ApiException.invalid(
            "field 'snoozeSeconds' must be between 0 and "
                + MAX_SNOOZE_SECONDS
                + ", not "
                + snoozeSeconds);
      }
    } else if (snoozeSeconds != null) {
      throw ApiException.invalid(
          "field 'snoozeSeconds' is only allowed with action snooze, not "
              + failureAction.wireName());
    }
    return new Failure(
        failureAction, error == null ? NO_ERROR : error, snoozeSeconds == null ? 0 : snoozeSeconds);
  }

  /** The runner id, checked; a 400 naming the field otherwise. */
  public String validatedRunnerId() {
    return Fields.checkRunnerId(runnerId);
  }
}
