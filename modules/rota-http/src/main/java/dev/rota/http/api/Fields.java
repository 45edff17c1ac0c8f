package dev.rota.http.api;

import dev.rota.core.model.TextRules;
import dev.rota.http.ApiException;
import java.util.List;

/**
 * The checks request records share: ranges of numbers and lengths of strings, each failing with a
 * 400 that names the field. The characters a string may hold are checked once for the whole body
 * ({@link TextRules}, when the body is parsed); what is left here is what depends on the field.
 */
final class Fields {
  /** The most capabilities an agent may require or a runner offer. */
  static final int MAX_CAPABILITIES = 32;

  static final int MAX_CAPABILITY_LENGTH = 64;

  static final int MAX_NOTIFICATION_ID_LENGTH = 128;

  private Fields() {}

  static void checkRange(String field, Long value, long min, long max) {
    if (value != null && (value < min || value > max)) {
      throw ApiException.invalid(
          "field '" + field + "' must be between " + min + " and " + max + ", not " + value);
    }
  }

  static void checkRange(String field, Integer value, long min, long max) {
    checkRange(field, value == null ? null : value.longValue(), min, max);
  }

  /** A string that, when given, is not blank and at most {@code maxLength} characters. */
  static void checkText(String field, String value, int maxLength) {
    if (value == null) {
      return;
    }
    if (value.isBlank()) {
      throw ApiException.invalid("field '" + field + "' must not be blank");
    }
    if (value.length() > maxLength) {
      throw ApiException.invalid(
          "field '"
              + field
              + "' must be at most "
              + maxLength
              + " characters, not "
              + value.length());
    }
  }

  /**
   * The runner id a lease report must carry (the agent compares it with the lease's holder),
   * checked like the one of a claim.
   */
  static String checkRunnerId(String runnerId) {
    if (runnerId == null) {
      throw ApiException.invalid("field 'runnerId' is required: the runner that claimed the lease");
    }
    checkText("runnerId", runnerId, ClaimRequest.MAX_RUNNER_ID_LENGTH);
    return runnerId;
  }

  /** A list of capabilities: at most 32, each non-blank, at most 64 characters, without a comma. */
  static List<String> checkCapabilities(List<String> capabilities) {
    if (capabilities == null) {
      return null;
    }
    if (capabilities.size() > MAX_CAPABILITIES) {
      throw ApiException.invalid(
          "field 'capabilities' may hold at most "
              + MAX_CAPABILITIES
              + " capabilities, not "
              + capabilities.size());
    }
    for (int i = 0; i < capabilities.size(); i++) {
      String capability = capabilities.get(i);
      String field = "capabilities[" + i + "]";
      if (capability == null) {
        throw ApiException.invalid("field '" + field + "' must be a non-blank string");
      }
      checkText(field, capability, MAX_CAPABILITY_LENGTH);
      // The read model stores capabilities comma-separated.
      if (capability.contains(",")) {
        throw ApiException.invalid("field '" + field + "' must not contain a comma");
      }
    }
    return List.copyOf(capabilities);
  }

  /**
   * The runner's cursor on new input ({@code inputSeen}): notification ids, each non-blank and at
   * most 128 characters; null when absent (the runner keeps no cursor).
   */
  static List<String> checkInputSeen(List<String> inputSeen) {
    if (inputSeen == null) {
      return null;
    }
    for (int i = 0; i < inputSeen.size(); i++) {
      String field = "inputSeen[" + i + "]";
      if (inputSeen.get(i) == null) {
        throw ApiException.invalid("field '" + field + "' must be a notification id");
      }
      checkText(field, inputSeen.get(i), MAX_NOTIFICATION_ID_LENGTH);
    }
    return List.copyOf(inputSeen);
  }
}
