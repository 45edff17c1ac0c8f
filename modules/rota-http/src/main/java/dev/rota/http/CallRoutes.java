package dev.rota.http;

import com.fasterxml.jackson.databind.JsonNode;
import dev.rota.cluster.agent.AgentEntity;
import dev.rota.cluster.agent.AgentEntity.Accepted;
import dev.rota.cluster.agent.CallEntity;
import dev.rota.core.model.CallInfo;
import dev.rota.core.model.CallKeys;
import dev.rota.core.model.CallRequest;
import dev.rota.core.tenant.AgentKeys;
import dev.rota.http.api.CallAnswer;
import dev.rota.http.api.NotificationAccepted;
import dev.rota.http.api.NotificationRequest;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Duration;
import java.util.HexFormat;
import java.util.Optional;
import org.apache.pekko.http.javadsl.model.StatusCodes;
import org.apache.pekko.http.javadsl.server.AllDirectives;
import org.apache.pekko.http.javadsl.server.PathMatchers;
import org.apache.pekko.http.javadsl.server.Route;

/**
 * Calls made from outside Rota (docs/api.md, "Callers outside Rota"): a notification with {@code
 * call} is given to the agent, carrying the call, and once the agent accepts it the call's entity
 * ({@link CallEntity}) is opened; {@code GET /v1/calls/{callId}} (role producer) answers the call's
 * status, as a long poll when asked to wait. A call id names its tenant: another tenant's call is
 * 404, as one that does not exist.
 *
 * <p>A notification with a dedupe key makes the same call id every time, so a retried request names
 * the call its first try made.
 */
public final class CallRoutes extends AllDirectives {
  public static final int MAX_WAIT_SECONDS = 60;

  private final AgentGateway agents;
  private final ApiAuth auth;

  public CallRoutes(AgentGateway agents, ApiAuth auth) {
    this.agents = agents;
    this.auth = auth;
  }

  public Route route() {
    return pathPrefix(
        PathMatchers.segment("v1").slash("calls"),
        () ->
            auth.requireCaller(
                Role.PRODUCER,
                caller ->
                    path(
                        PathMatchers.segment(),
                        callId ->
                            get(
                                () ->
                                    parameterOptional(
                                        "waitSeconds", wait -> show(caller, callId, wait))))));
  }

  private Route show(Caller caller, String callId, Optional<String> waitParam) {
    String tenant = CallKeys.tenantOf(callId);
    if (tenant == null || !caller.mayUse(tenant)) {
      throw ApiException.notFound("no call " + callId);
    }
    long waitSeconds = waitSeconds(waitParam);
    Duration wait = Duration.ofSeconds(waitSeconds);
    Duration within = wait.plus(agents.askTimeout());
    return withRequestTimeout(
        within.plusSeconds(5),
        () ->
            onSuccess(
                agents.askCall(
                    callId, replyTo -> new CallEntity.Get(wait.toMillis(), replyTo), within),
                reply -> {
                  CallEntity.View view = (CallEntity.View) reply;
                  if (!view.known()) {
                    throw ApiException.notFound("no call " + callId);
                  }
                  return complete(
                      JsonSupport.response(
                          StatusCodes.OK,
                          new CallAnswer(
                              view.callId(),
                              view.status(),
                              present(view.result(), view.status().equals("answered")),
                              present(
                                  view.error(),
                                  !view.status().equals("answered")
                                      && !view.status().equals("pending")),
                              view.answeredAt())));
                }));
  }

  private static JsonNode present(JsonNode node, boolean shown) {
    if (!shown) {
      return null;
    }
    return node == null ? com.fasterxml.jackson.databind.node.NullNode.getInstance() : node;
  }

  private static long waitSeconds(Optional<String> param) {
    if (param.isEmpty()) {
      return 0;
    }
    try {
      long value = Long.parseLong(param.get());
      if (value >= 0 && value <= MAX_WAIT_SECONDS) {
        return value;
      }
    } catch (NumberFormatException e) {
      // answered below
    }
    throw ApiException.invalid(
        "waitSeconds must be a whole number from 0 to "
            + MAX_WAIT_SECONDS
            + ", not "
            + param.get());
  }

  /**
   * Notifies agent {@code agentKey} with a notification that carries the call, and opens the call
   * only once the agent has accepted it (decision 120): a refused notification (404, 409, 429, …)
   * makes no call, so {@code GET /v1/calls/{callId}} never shows one that was not, and a retry with
   * the same dedupe key makes it afresh. The 202 names the call.
   */
  Route notifyWithCall(String agentKey, NotificationRequest n, CallRequest call) {
    String tenant = AgentKeys.tenantOf(agentKey);
    String callId = callIdFor(agentKey, n.dedupeKey());
    CallInfo info = new CallInfo(callId, new CallInfo.Party(tenant, null), 1);
    return onSuccess(
        agents.ask(
            agentKey,
            replyTo ->
                new AgentEntity.Notify(
                    n.type(), n.payload(), n.dedupeKey(), n.policy(), info, replyTo)),
        reply -> {
          if (reply instanceof AgentEntity.Rejected rejected) {
            throw ApiErrors.rejected(rejected);
          }
          Accepted accepted = (Accepted) reply;
          return onSuccess(
              agents.askCall(
                  callId,
                  replyTo ->
                      new CallEntity.Open(
                          AgentKeys.agentIdOf(agentKey), call.timeoutSeconds(), replyTo),
                  agents.askTimeout()),
              opened ->
                  complete(
                      JsonSupport.response(
                          StatusCodes.ACCEPTED,
                          new NotificationAccepted(
                              accepted.notificationId(),
                              accepted.unread(),
                              accepted.duplicate(),
                              accepted.steered(),
                              accepted.interrupted(),
                              callId))));
        });
  }

  /** A fresh call id, or with a dedupe key the same one for the same agent and key. */
  static String callIdFor(String agentKey, String dedupeKey) {
    String tenant = AgentKeys.tenantOf(agentKey);
    if (dedupeKey == null) {
      return CallKeys.newExternalCallId(tenant);
    }
    try {
      byte[] digest =
          MessageDigest.getInstance("SHA-256")
              .digest((agentKey + "\n" + dedupeKey).getBytes(StandardCharsets.UTF_8));
      return tenant + "~" + HexFormat.of().formatHex(digest, 0, 16);
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("SHA-256 is always there", e);
    }
  }
}
