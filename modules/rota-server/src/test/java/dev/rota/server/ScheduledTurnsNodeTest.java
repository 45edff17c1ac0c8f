package dev.rota.server;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.typesafe.config.Config;
import com.typesafe.config.ConfigFactory;
import dev.rota.server.testing.Databases;
import dev.rota.server.testing.NodeHttp;
import dev.rota.server.testing.TestDatabase;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import org.apache.pekko.actor.testkit.typed.javadsl.LogCapturingExtension;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Schedules (decisions 33–35) on a real node over HTTP. The long test, in real time: an agent whose
 * schedule fires every minute is down with its node across two fire times and gets exactly one
 * (coalesced) scheduled turn after the restart, then a scheduled turn within seconds of the next
 * fire; about two and a half minutes, most of it waiting for the clock, so it is tagged {@code
 * long} and runs with {@code -Pfaults}. The default build keeps the short one: a fire that has not
 * come yet outlives a restart of the node. Coalescing and the rule itself are tested without a
 * clock in rota-core and rota-cluster ({@code AgentEntityScheduleTest}).
 */
@ExtendWith(LogCapturingExtension.class)
class ScheduledTurnsNodeTest extends NodeOnDatabase {
  private static final String AGENT = "sched-agent";

  /** A fire is served this soon or the wake-up at fire time is broken (it is ~10 ms idle). */
  private static final Duration SOON = Duration.ofSeconds(15);

  @Override
  TestDatabase newDatabase() {
    return Databases.h2();
  }

  @Override
  Config nodeConfig(TestDatabase database) {
    return h2Config(ConfigFactory.empty(), database);
  }

  private NodeHttp http() {
    return new NodeHttp(node.httpPort());
  }

  @Test
  void aFireThatHasNotComeOutlivesARestartOfTheNode() {
    awaitReady();
    String agent = "sched-short";
    // A capability of its own, so that the long test's runner never takes this agent.
    JsonNode view =
        http()
            .json(
                "PUT",
                "/v1/agents/" + agent,
                """
                {"capabilities": ["sched-short"],
                 "schedules": [{"name": "yearly", "cron": "0 3 1 1 *", "timezone": "Europe/Berlin",
                                "payload": {"task": "report"}}]}
                """,
                201);
    Instant fire = Instant.parse(view.get("scheduled").get("nextFireAt").asText());
    assertTrue(fire.isAfter(Instant.now()), view.toString());
    assertFalse(view.get("scheduled").get("due").asBoolean(), view.toString());

    node.stop();
    node = RotaNode.startWith(nodeConfig(database));
    awaitReady();

    JsonNode after = http().json("GET", "/v1/agents/" + agent, null, 200);
    assertEquals(
        fire.toString(), after.get("scheduled").get("nextFireAt").asText(), after.toString());
    assertFalse(after.get("scheduled").get("due").asBoolean(), after.toString());
    assertEquals("yearly", after.get("schedules").get(0).get("name").asText(), after.toString());
  }

  @Test
  @Tag("long")
  void scheduleFiresEveryMinuteAndFiresMissedWhileDownCoalesceIntoOneTurn() throws Exception {
    awaitReady();
    // A long minimum interval: after its first turn, no exploration turn can stand in for a
    // scheduled one, and none is held back by it.
    JsonNode view =
        http()
            .json(
                "PUT",
                "/v1/agents/" + AGENT,
                """
                {"minActivationIntervalSeconds": 86400,
                 "schedules": [{"name": "tick", "cron": "* * * * *", "timezone": "Europe/Berlin",
                                "payload": {"task": "check in"}}]}
                """,
                201);
    Instant registeredFire = Instant.parse(view.get("scheduled").get("nextFireAt").asText());
    assertEquals(
        registeredFire, Instant.parse(view.get("schedules").get(0).get("nextFireAt").asText()));
    assertFalse(view.get("scheduled").get("due").asBoolean());
    // Its first turn (exploration: never activated, unless the first fire has come already) makes
    // it ineligible for staleness for a day, so after the restart only the schedule the
    // coordinators rebuild from agent_schedule can give it a turn.
    JsonNode first = claim(5);
    boolean firstWasScheduled = first.get("kind").asText().equals("scheduled");
    complete(first);
    JsonNode rested = http().json("GET", "/v1/agents/" + AGENT, null, 200);
    assertFalse(rested.get("scheduled").get("due").asBoolean(), rested.toString());
    Instant firstFire = Instant.parse(rested.get("scheduled").get("nextFireAt").asText());

    node.stop();
    node = null;
    Instant stoppedAt = Instant.now();
    // Down across two fire times.
    Instant secondMissed = nextMinute(stoppedAt).plusSeconds(60);
    sleepUntil(secondMissed.plusSeconds(2));
    node = RotaNode.startWith(nodeConfig(database));
    awaitReady();

    JsonNode agent = http().json("GET", "/v1/agents/" + AGENT, null, 200);
    assertTrue(agent.get("scheduled").get("due").asBoolean(), agent.toString());
    assertEquals(firstFire.toString(), agent.get("scheduled").get("nextFireAt").asText());
    JsonNode explained = http().json("GET", "/v1/agents/" + AGENT + "/explain", null, 200);
    assertTrue(explained.get("scheduled").get("due").asBoolean(), explained.toString());

    JsonNode coalesced = claim(10);
    assertEquals("scheduled", coalesced.get("kind").asText(), coalesced.toString());
    JsonNode schedule = coalesced.get("schedule");
    assertEquals("tick", schedule.get("name").asText());
    assertEquals("check in", schedule.get("payload").get("task").asText());
    Instant firedAt = Instant.parse(schedule.get("firedAt").asText());
    Instant grantedAt = Instant.parse(coalesced.get("grantedAt").asText());
    // The turn answers the latest fire, covering every missed one before it.
    assertEquals(grantedAt.truncatedTo(ChronoUnit.MINUTES), firedAt);
    assertFalse(firedAt.isBefore(secondMissed));
    complete(coalesced);

    // Exactly one: nothing more until the next fire.
    Instant nextFire = firedAt.plusSeconds(60);
    if (Instant.now().plusSeconds(5).isBefore(nextFire)) {
      assertEquals("none", rawClaim(2).get("status").asText());
    }
    JsonNode after = http().json("GET", "/v1/agents/" + AGENT, null, 200);
    assertEquals(nextFire.toString(), after.get("scheduled").get("nextFireAt").asText());

    JsonNode live = claimAfter(nextFire);
    assertEquals("scheduled", live.get("kind").asText(), live.toString());
    assertEquals(nextFire.toString(), live.get("schedule").get("firedAt").asText());
    Duration late = Duration.between(nextFire, Instant.parse(live.get("grantedAt").asText()));
    assertTrue(late.compareTo(SOON) < 0, "served " + late + " after its fire");
    complete(live);

    JsonNode history = http().json("GET", "/v1/agents/" + AGENT + "/history", null, 200);
    long scheduledGrants = 0;
    for (JsonNode event : history.get("events")) {
      if (event.get("type").asText().equals("lease.granted")
          && !event.get("kind").asText().equals("exploration")) {
        assertEquals("scheduled", event.get("kind").asText(), event.toString());
        assertEquals("tick", event.get("schedule").asText());
        scheduledGrants++;
      }
    }
    assertEquals(firstWasScheduled ? 3 : 2, scheduledGrants, history.toString());
    // The cluster-wide counter in /admin/stats counts the same grants.
    JsonNode stats = http().json("GET", "/admin/stats", null, 200);
    assertEquals(scheduledGrants, stats.at("/activations/scheduled").asLong(), stats.toString());
  }

  /** Claims as a hybrid runner, long-polling until assigned or past the fire by a minute. */
  private JsonNode claimAfter(Instant fire) {
    Instant deadline = fire.plusSeconds(60);
    while (Instant.now().isBefore(deadline)) {
      // NodeHttp gives up on an answer after 30 s: long-poll for less.
      long wait = Math.min(20, Math.max(1, Duration.between(Instant.now(), deadline).toSeconds()));
      JsonNode answer = rawClaim(wait);
      if (answer.get("status").asText().equals("assigned")) {
        return answer.get("assignment");
      }
    }
    throw new AssertionError("no turn for the fire at " + fire);
  }

  private JsonNode claim(long waitSeconds) {
    JsonNode answer = rawClaim(waitSeconds);
    assertEquals("assigned", answer.get("status").asText(), answer.toString());
    return answer.get("assignment");
  }

  private JsonNode rawClaim(long waitSeconds) {
    return http()
        .json(
            "POST",
            "/v1/claims",
            "{\"runnerId\": \"r1\", \"mode\": \"hybrid\", \"waitSeconds\": " + waitSeconds + "}",
            200);
  }

  private void complete(JsonNode assignment) {
    http()
        .json(
            "POST",
            "/v1/leases/" + assignment.get("leaseId").asText() + "/complete",
            "{\"runnerId\": \"r1\"}",
            200);
  }

  private void awaitReady() {
    NodeHttp management = new NodeHttp(node.managementPort());
    await("node ready")
        .atMost(Duration.ofSeconds(30))
        .pollInterval(Duration.ofMillis(100))
        .until(() -> management.send("GET", "/ready", null).statusCode() == 200);
  }

  private static Instant nextMinute(Instant t) {
    return t.truncatedTo(ChronoUnit.MINUTES).plusSeconds(60);
  }

  /** Lets the wall clock pass a schedule's fire time: time passing is what the test is about. */
  private static void sleepUntil(Instant t) throws InterruptedException {
    long millis = Duration.between(Instant.now(), t).toMillis();
    if (millis > 0) {
      Thread.sleep(millis);
    }
  }
}
