package dev.rota.http.api;

import dev.rota.http.ApiException;

/**
 * The body of {@code POST /v1/runners/{runnerId}/health}: {@code {"degraded": true, "reason": "out
 * of memory", "seconds": 300}} degrades the runner for {@code seconds} (1 to {@code
 * rota.runner-health.max-report-seconds}); {@code {"degraded": false}} clears a degradation.
 */
public record RunnerHealthRequest(Boolean degraded, String reason, Long seconds) {
  public static final int MAX_REASON_LENGTH = 500;

  /** The runner id of the path, checked; a 400 otherwise. */
  public static String checkedRunnerId(String runnerId) {
    return Fields.checkRunnerId(runnerId);
  }

  /** A report with every field checked and defaulted. */
  public record Health(boolean degraded, String reason, long seconds) {}

  /** The checked report; a 400 naming the field otherwise. */
  public Health validated(long maxSeconds) {
    if (degraded == null) {
      throw ApiException.invalid("field 'degraded' is required (true or false)");
    }
    Fields.checkText("reason", reason, MAX_REASON_LENGTH);
    if (!degraded) {
      return new Health(false, null, 0);
    }
    if (seconds == null) {
      throw ApiException.invalid("field 'seconds' is required when degraded is true");
    }
    Fields.checkRange("seconds", seconds, 1, maxSeconds);
    return new Health(true, reason == null ? "reported by the runner" : reason, seconds);
  }
}
