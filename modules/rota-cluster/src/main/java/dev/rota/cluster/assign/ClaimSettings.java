package dev.rota.cluster.assign;

import com.typesafe.config.Config;
import java.time.Duration;

/**
 * Every time-out of a claim's life, from the ask to the answer (docs/configuration.md, "Claims").
 * The first ones are configured; the rest are fixed, named here so that a reader sees them
 * together.
 *
 * @param settle how long a claim that asked not to wait still waits for fitting work: the
 *     coordination window in which work acknowledged just before it is published ({@code
 *     rota.coordinator.settle})
 * @param agentTimeout how long the dispatcher waits for an agent to answer a claim ({@code
 *     rota.coordinator.claim-timeout})
 * @param agentTries agents the dispatcher tries for one claim before it parks the claim until the
 *     partitions publish again ({@code rota.coordinator.claim-tries})
 * @param blockedRetryAfter the most a blocked runner is told to wait before it asks again ({@code
 *     rota.runner-health.blocked-retry-after})
 * @param answerMargin how much longer than its wait a claim may take before the route answers it
 *     anyway, "none" for a long poll and 503 for a claim without a wait ({@code
 *     rota.http.ask-timeout})
 * @param requestTimeoutMargin room for the HTTP server to answer a claim without a wait after the
 *     route's own time-out, so that the route's 503 is the one sent
 * @param lateGrantWait how much longer than the route the ask itself waits, so that a grant that
 *     comes after the route answered still reaches the route and is handed back
 * @param probeInterval how often a waiting long poll writes a space to learn that its connection is
 *     gone
 * @param linger how long a stopping node gives the last bytes of answered long polls
 * @param avoidRecheck how long an agent that turned a runner away (retry avoidance) is not ranked
 *     for that runner
 * @param awaitHeads how long a claim out of time still waits for a partition it must hear from
 * @param forgetHiddenAfter how long the dispatcher remembers an agent it claimed or was denied
 * @param forgetRunnersAfter how long the dispatcher lists a runner that stopped asking
 * @param directoryPoll how often a starting dispatcher checks that every partition has published
 * @param directoryGrace how long a starting dispatcher waits for every partition before it answers
 *     from the ones it heard
 * @param drainTimeout how long a stopping node waits for its dispatcher to answer waiting claims
 */
public record ClaimSettings(
    Duration settle,
    Duration agentTimeout,
    int agentTries,
    Duration blockedRetryAfter,
    Duration answerMargin,
    Duration requestTimeoutMargin,
    Duration lateGrantWait,
    Duration probeInterval,
    Duration linger,
    Duration avoidRecheck,
    Duration awaitHeads,
    Duration forgetHiddenAfter,
    Duration forgetRunnersAfter,
    Duration directoryPoll,
    Duration directoryGrace,
    Duration drainTimeout) {

  /** {@code rota.http.ask-timeout} where the node serves no HTTP (its reference value). */
  private static final Duration DEFAULT_ANSWER_MARGIN = Duration.ofSeconds(5);

  public static ClaimSettings from(Config config) {
    Config rota = config.getConfig("rota");
    return new ClaimSettings(
        rota.getDuration("coordinator.settle"),
        rota.getDuration("coordinator.claim-timeout"),
        rota.getInt("coordinator.claim-tries"),
        rota.getDuration("runner-health.blocked-retry-after"),
        rota.hasPath("http.ask-timeout")
            ? rota.getDuration("http.ask-timeout")
            : DEFAULT_ANSWER_MARGIN,
        Duration.ofSeconds(5),
        Duration.ofSeconds(30),
        Duration.ofMillis(500),
        Duration.ofMillis(500),
        Duration.ofSeconds(1),
        Duration.ofSeconds(1),
        Duration.ofSeconds(30),
        Duration.ofHours(1),
        Duration.ofMillis(20),
        Duration.ofSeconds(30),
        Duration.ofSeconds(5));
  }

  /** These settings with the route's answer margin ({@code rota.http.ask-timeout}). */
  public ClaimSettings withAnswerMargin(Duration margin) {
    return new ClaimSettings(
        settle,
        agentTimeout,
        agentTries,
        blockedRetryAfter,
        margin,
        requestTimeoutMargin,
        lateGrantWait,
        probeInterval,
        linger,
        avoidRecheck,
        awaitHeads,
        forgetHiddenAfter,
        forgetRunnersAfter,
        directoryPoll,
        directoryGrace,
        drainTimeout);
  }
}
