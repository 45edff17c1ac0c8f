package dev.rota.core.model;

import com.cronutils.model.Cron;
import com.cronutils.model.CronType;
import com.cronutils.model.definition.CronDefinitionBuilder;
import com.cronutils.model.time.ExecutionTime;
import com.cronutils.parser.CronParser;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import java.time.DateTimeException;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZonedDateTime;
import java.time.temporal.ChronoUnit;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;

/**
 * A fixed time at which an agent wants a turn (ADR-011's cron override): a standard 5-field cron
 * expression read in an IANA time zone, and the payload its turns carry. Fire times are whole
 * minutes, so they compare exactly across time zones and daylight-saving changes.
 *
 * @param name unique among the agent's schedules; assignments and history name it
 * @param cron minute, hour, day of month, month, day of week (cron-utils' UNIX definition)
 * @param timezone an IANA zone id such as {@code Europe/Berlin}; {@code UTC} when absent
 * @param payload free JSON object handed to the runner with each scheduled turn
 */
public record Schedule(String name, String cron, String timezone, JsonNode payload) {

  public static final String DEFAULT_TIMEZONE = "UTC";

  private static final CronParser PARSER =
      new CronParser(CronDefinitionBuilder.instanceDefinitionFor(CronType.UNIX));

  /** Parsed expressions by text: agents share a handful of crons, and parsing is not free. */
  private static final Map<String, ExecutionTime> PARSED = new ConcurrentHashMap<>();

  private static final int MAX_PARSED = 10_000;

  public Schedule {
    if (timezone == null) {
      timezone = DEFAULT_TIMEZONE;
    }
    if (payload == null || payload.isNull()) {
      payload = JsonNodeFactory.instance.objectNode();
    }
  }

  /**
   * What is wrong with this cron expression (5 fields, in range, fires at least once), or empty.
   */
  public static Optional<String> cronProblem(String cron) {
    if (cron == null || cron.isBlank()) {
      return Optional.of("must be a 5-field cron expression such as \"0 9 * * *\"");
    }
    ExecutionTime time;
    try {
      time = executionTime(cron);
    } catch (IllegalArgumentException e) {
      return Optional.of("is not a valid 5-field cron expression: " + e.getMessage());
    }
    if (time.nextExecution(ZonedDateTime.now(java.time.ZoneOffset.UTC)).isEmpty()) {
      return Optional.of("never fires");
    }
    return Optional.empty();
  }

  /** What is wrong with this time zone (not an IANA region id or UTC), or empty. */
  public static Optional<String> timezoneProblem(String timezone) {
    if (timezone == null) {
      return Optional.empty();
    }
    if (!ZoneId.getAvailableZoneIds().contains(timezone)) {
      return Optional.of("must be an IANA time zone such as \"Europe/Berlin\" or \"UTC\"");
    }
    return Optional.empty();
  }

  /** The first fire strictly after {@code instant}; null when the cron never fires again. */
  public Instant nextFireAfter(Instant instant) {
    // Fires are whole minutes: after the second that holds the instant is after the instant.
    ZonedDateTime from = zoned(instant.truncatedTo(ChronoUnit.SECONDS));
    return executionTime(cron).nextExecution(from).map(ZonedDateTime::toInstant).orElse(null);
  }

  /** The last fire at or before {@code instant}; null when there is none. */
  public Instant latestFireAtOrBefore(Instant instant) {
    ZonedDateTime until = zoned(instant.truncatedTo(ChronoUnit.SECONDS).plusSeconds(1));
    Instant last =
        executionTime(cron).lastExecution(until).map(ZonedDateTime::toInstant).orElse(null);
    return last == null || last.isAfter(instant) ? null : last;
  }

  /** Whether the fire times of {@code other} are those of this schedule (payload aside). */
  public boolean firesLike(Schedule other) {
    return cron.equals(other.cron) && timezone.equals(other.timezone);
  }

  private ZonedDateTime zoned(Instant instant) {
    ZoneId zone;
    try {
      zone = ZoneId.of(timezone);
    } catch (DateTimeException e) {
      // Validated at the edge; a zone a later JDK dropped falls back rather than fail the agent.
      zone = java.time.ZoneOffset.UTC;
    }
    return instant.atZone(zone);
  }

  private static ExecutionTime executionTime(String cron) {
    ExecutionTime known = PARSED.get(cron);
    if (known != null) {
      return known;
    }
    Cron parsed = PARSER.parse(cron);
    parsed.validate();
    ExecutionTime time = ExecutionTime.forCron(parsed);
    if (PARSED.size() >= MAX_PARSED) {
      PARSED.clear();
    }
    PARSED.put(cron, time);
    return time;
  }
}
