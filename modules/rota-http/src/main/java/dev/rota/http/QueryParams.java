package dev.rota.http;

import dev.rota.core.model.Ids;
import java.util.Optional;

/**
 * The checks of the parameters several resources share, so that an agent id or a limit is refused
 * with the same 400 message wherever it appears.
 */
final class QueryParams {
  private QueryParams() {}

  /** An agent id from the path; refused unless valid. */
  static String agentId(String value) {
    if (!Ids.isValidAgentId(value)) {
      throw ApiException.invalid(
          "agentId must be 1 to 128 characters of letters, digits and . _ : -");
    }
    return value;
  }

  /** An optional agent id filter: null when absent or empty, refused when invalid. */
  static String agentIdFilter(Optional<String> param) {
    if (param.isEmpty() || param.get().isEmpty()) {
      return null;
    }
    return agentId(param.get());
  }

  /** A page size between 1 and {@code max}; {@code defaultLimit} when absent. */
  static int limit(Optional<String> param, int defaultLimit, int max) {
    if (param.isEmpty()) {
      return defaultLimit;
    }
    try {
      int limit = Integer.parseInt(param.get());
      if (limit >= 1 && limit <= max) {
        return limit;
      }
    } catch (NumberFormatException e) {
      // answered below, with the same message as an out-of-range number
    }
    throw ApiException.invalid("limit must be an integer between 1 and " + max);
  }
}
