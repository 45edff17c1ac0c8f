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
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
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

  public static final int MAX_NAME_LENGTH = 128;
  public static final int MAX_CRON_LENGTH = 256;

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

  /**
   * The first thing wrong with a list of schedules, naming the field ({@code schedules[2].cron}):
   * more than {@link AgentConfig#MAX_SCHEDULES}, a missing or repeated name, a cron that is not 5
   * valid fields or never fires, a zone that is not IANA, strings the journal cannot hold.
   */
  public static Optional<TextRules.Violation> firstViolation(List<Schedule> schedules) {
    if (schedules == null) {
      return Optional.empty();
    }
    if (schedules.size() > AgentConfig.MAX_SCHEDULES) {
      return Optional.of(
          new TextRules.Violation(
              "schedules",
              "may hold at most "
                  + AgentConfig.MAX_SCHEDULES
                  + " schedules, not "
                  + schedules.size()));
    }
    Set<String> names = new HashSet<>();
    for (int i = 0; i < schedules.size(); i++) {
      String field = "schedules[" + i + "]";
      Schedule s = schedules.get(i);
      if (s == null) {
        return Optional.of(new TextRules.Violation(field, "must be an object"));
      }
      Optional<TextRules.Violation> bad =
          TextRules.check(field + ".name", s.name(), TextRules.Kind.NAME)
              .or(() -> TextRules.check(field + ".cron", s.cron(), TextRules.Kind.NAME))
              .or(() -> TextRules.check(field + ".timezone", s.timezone(), TextRules.Kind.NAME))
              .or(
                  () ->
                      TextRules.firstViolation(
                          s.payload(), field + ".payload", TextRules.Kind.TEXT));
      if (bad.isPresent()) {
        return bad;
      }
      if (s.name() == null || s.name().isBlank() || s.name().length() > MAX_NAME_LENGTH) {
        return Optional.of(
            new TextRules.Violation(
                field + ".name", "must be 1 to " + MAX_NAME_LENGTH + " characters, not blank"));
      }
      if (!names.add(s.name())) {
        return Optional.of(
            new TextRules.Violation(field + ".name", "repeats the schedule name " + s.name()));
      }
      if (s.cron() != null && s.cron().length() > MAX_CRON_LENGTH) {
        return Optional.of(
            new TextRules.Violation(
                field + ".cron", "must be at most " + MAX_CRON_LENGTH + " characters"));
      }
      Optional<String> cron = cronProblem(s.cron());
      if (cron.isPresent()) {
        return Optional.of(new TextRules.Violation(field + ".cron", cron.get()));
      }
      Optional<String> zone = timezoneProblem(s.timezone());
      if (zone.isPresent()) {
        return Optional.of(new TextRules.Violation(field + ".timezone", zone.get()));
      }
      if (!s.payload().isObject()) {
        return Optional.of(new TextRules.Violation(field + ".payload", "must be a JSON object"));
      }
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
