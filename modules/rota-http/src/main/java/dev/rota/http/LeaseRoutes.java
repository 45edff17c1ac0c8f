package dev.rota.http;

import com.fasterxml.jackson.databind.JsonNode;
import dev.rota.cluster.agent.AgentEntity;
import dev.rota.cluster.agent.AgentEntity.Command;
import dev.rota.cluster.agent.AgentEntity.Done;
import dev.rota.cluster.agent.AgentEntity.Extended;
import dev.rota.cluster.agent.AgentEntity.NewInputs;
import dev.rota.cluster.agent.AgentEntity.Rejected;
import dev.rota.cluster.agent.AgentEntity.Reply;
import dev.rota.cluster.assign.ActivationJson;
import dev.rota.core.model.ClaimSpec;
import dev.rota.core.model.Ids;
import dev.rota.core.model.Send;
import dev.rota.http.api.ActivationCompleted;
import dev.rota.http.api.ActivationFailed;
import dev.rota.http.api.CompleteRequest;
import dev.rota.http.api.FailRequest;
import dev.rota.http.api.HeartbeatRequest;
import dev.rota.http.api.InputAnswer;
import dev.rota.http.api.InputRequest;
import dev.rota.http.api.LeaseExtended;
import dev.rota.http.api.NextClaim;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletionStage;
import java.util.function.Function;
import java.util.function.Supplier;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.http.javadsl.model.StatusCodes;
import org.apache.pekko.http.javadsl.server.AllDirectives;
import org.apache.pekko.http.javadsl.server.PathMatchers;
import org.apache.pekko.http.javadsl.server.Route;

/**
 * The lease resource of docs/api.md (role runner): heartbeat, complete and fail under {@code
 * /v1/leases/{leaseId}}. A lease id names its agent, so each request is one ask of that agent, on
 * whichever node it lives. An id that names no agent, or an agent that does not exist, is 404
 * {@code not_found}; an existing agent whose current live lease is not this one (it expired, was
 * completed or failed, or was superseded) is 410 {@code lease_lost}: the runner must stop and must
 * not report the activation again. Each report carries the {@code runnerId} that claimed: a report
 * by another runner is 409 {@code lease_not_held} and changes nothing, so a lease id that leaks
 * does not let its reader end or extend the activation.
 *
 * <p>{@code input} is the runner's long poll for new input during the turn (docs/api.md, "New input
 * during a turn"); after an interrupt every report on the lease is 410 {@code lease_lost} with
 * {@code "reason": "interrupted"}.
 *
 * <p>A runner token acts only under its own runner ids (403 {@code forbidden} for another) and sees
 * only the leases of its tenants' agents: another tenant's lease id is 404, as if it did not exist.
 *
 * <p>A completion or failure may carry the runner's next claim ({@code next}, docs/api.md "Complete
 * and claim again"): once the agent has answered the report (it is durable), the claim is made as
 * the lease's runner, for every tenant the token may serve, and its answer is written beside the
 * report's ({@link ClaimRoutes#claimAfterReport}), so a turn over HTTP is one request. A refused
 * report (404, 409, 410) makes no claim and carries no {@code next}.
 */
public final class LeaseRoutes extends AllDirectives {
  private final AgentGateway agents;
  private final ClaimRoutes claims;
  private final ApiAuth auth;
  private final long maxBodyBytes;
  private final Duration askTimeout;

  /**
   * @param claims where a report's next claim is made
   */
  public LeaseRoutes(AgentGateway agents, ClaimRoutes claims, ApiAuth auth, HttpSettings settings) {
    this.agents = agents;
    this.claims = claims;
    this.auth = auth;
    this.maxBodyBytes = settings.maxBodyBytes();
    this.askTimeout = settings.askTimeout();
  }

  public Route route() {
    return pathPrefix(
        PathMatchers.segment("v1").slash("leases"),
        () ->
            auth.requireCaller(
                Role.RUNNER,
                caller ->
                    pathPrefix(
                        PathMatchers.segment(),
                        leaseId ->
                            concat(
                                path("heartbeat", () -> post(() -> onHeartbeat(caller, leaseId))),
                                path("input", () -> post(() -> onInput(caller, leaseId))),
                                path("complete", () -> post(() -> onComplete(caller, leaseId))),
                                path("fail", () -> post(() -> onFail(caller, leaseId)))))));
  }

  private Route onHeartbeat(Caller caller, String leaseId) {
    return JsonSupport.body(
        HeartbeatRequest.class,
        maxBodyBytes,
        body -> {
          String runnerId = caller.requireRunner(body.validatedRunnerId());
          return ask(
              caller,
              leaseId,
              replyTo -> new AgentEntity.Heartbeat(leaseId, runnerId, replyTo),
              reply -> {
                Extended extended = expected(Extended.class, reply);
                return json(
                    new LeaseExtended(
                        extended.expiresAt(),
                        ActivationJson.notifications(extended.notifications())));
              });
        });
  }

  /**
   * A long poll for new input during the turn: steered notifications, or that the lease was
   * interrupted. The agent holds the wait, so the request's own timeout is raised past it.
   */
  private Route onInput(Caller caller, String leaseId) {
    return JsonSupport.body(
        InputRequest.class,
        maxBodyBytes,
        body -> {
          String runnerId = caller.requireRunner(body.validatedRunnerId());
          Duration wait = Duration.ofSeconds(body.validatedWaitSeconds());
          return withRequestTimeout(
              wait.plus(askTimeout).plusSeconds(5),
              () ->
                  ask(
                      caller,
                      leaseId,
                      wait.plus(askTimeout),
                      replyTo ->
                          new AgentEntity.AwaitInput(leaseId, runnerId, wait.toMillis(), replyTo),
                      reply -> {
                        NewInputs inputs = expected(NewInputs.class, reply);
                        return json(
                            new InputAnswer(
                                ActivationJson.notifications(inputs.notifications()),
                                inputs.interrupted(),
                                inputs.interrupted() ? ApiException.INTERRUPTED : null));
                      }));
        });
  }

  private Route onComplete(Caller caller, String leaseId) {
    return JsonSupport.body(
        CompleteRequest.class,
        maxBodyBytes,
        body -> {
          String runnerId = caller.requireRunner(body.validatedRunnerId());
          JsonNode result = body.validatedResult();
          List<Send> sends = body.validatedSends();
          List<String> defer = body.validatedDefer();
          List<String> inputSeen = body.validatedInputSeen();
          ClaimSpec next = next(body.next(), runnerId);
          return withNextTimeout(
              next,
              () ->
                  ask(
                      caller,
                      leaseId,
                      replyTo ->
                          new AgentEntity.Complete(
                              leaseId, runnerId, result, sends, defer, inputSeen, replyTo),
                      reply ->
                          answer(
                              caller,
                              new ActivationCompleted(expected(Done.class, reply).at()),
                              next)));
        });
  }

  private Route onFail(Caller caller, String leaseId) {
    return JsonSupport.body(
        FailRequest.class,
        maxBodyBytes,
        body -> {
          String runnerId = caller.requireRunner(body.validatedRunnerId());
          FailRequest.Failure failure = body.validated();
          List<String> inputSeen = body.validatedInputSeen();
          ClaimSpec next = next(body.next(), runnerId);
          return withNextTimeout(
              next,
              () ->
                  ask(
                      caller,
                      leaseId,
                      replyTo ->
                          new AgentEntity.Fail(
                              leaseId,
                              runnerId,
                              failure.action(),
                              failure.error(),
                              failure.snoozeSeconds(),
                              inputSeen,
                              replyTo),
                      reply ->
                          answer(
                              caller,
                              new ActivationFailed(
                                  failure.action().wireName(), expected(Done.class, reply).at()),
                              next)));
        });
  }

  /** The report's next claim, checked before the report is made (a 400 changes nothing). */
  private ClaimSpec next(NextClaim next, String runnerId) {
    return next == null ? null : next.validated(runnerId, claims.defaultLeaseSeconds());
  }

  /**
   * A report with a next claim may take its ask and then the claim's first answer: the server's
   * request timeout is lifted to cover both, so that neither is cut short.
   */
  private Route withNextTimeout(ClaimSpec next, Supplier<Route> inner) {
    return next == null
        ? inner.get()
        : withRequestTimeout(askTimeout.plus(claims.longestNextAnswer()), inner);
  }

  /** The report's answer, with its next claim's beside it when it carried one. */
  private Route answer(Caller caller, Object report, ClaimSpec next) {
    if (next == null) {
      return json(report);
    }
    return completeWithFuture(
        claims.claimAfterReport(caller, next, GrantDelivery.Envelope.nextOf(report)));
  }

  /** One ask of the lease's agent; refusals become 404, 409 or 410. */
  private Route ask(
      Caller caller,
      String leaseId,
      Function<ActorRef<Reply>, Command> command,
      Function<Reply, Route> onReply) {
    return ask(caller, leaseId, null, command, onReply);
  }

  /**
   * {@link #ask} that waits {@code within} for the answer (null: the ask timeout); one that waits
   * longer holds a place among the node's long polls meanwhile, or is 503 when none is left.
   */
  private Route ask(
      Caller caller,
      String leaseId,
      Duration within,
      Function<ActorRef<Reply>, Command> command,
      Function<Reply, Route> onReply) {
    String agentId =
        TenantResolver.visibleKey(caller, Ids.agentOf(leaseId))
            .orElseThrow(() -> ApiException.notFound("no lease " + leaseId));
    CompletionStage<Reply> answer;
    if (within == null || within.compareTo(askTimeout) <= 0) {
      answer = agents.ask(agentId, command, within == null ? askTimeout : within);
    } else {
      LongPolls.Slot slot = claims.waitingRequests().enter(caller);
      try {
        answer = agents.ask(agentId, command, within);
      } catch (RuntimeException e) {
        slot.release();
        throw e;
      }
      answer.whenComplete((reply, failure) -> slot.release());
    }
    return onSuccess(
        answer,
        reply -> {
          if (reply instanceof Rejected rejected) {
            if (rejected.code() == AgentEntity.ErrorCode.NOT_FOUND) {
              throw ApiException.notFound("no lease " + leaseId);
            }
            if (rejected.code() == AgentEntity.ErrorCode.LEASE_INTERRUPTED) {
              throw ApiException.interrupted("lease " + leaseId + " was interrupted by new input");
            }
            if (rejected.code() == AgentEntity.ErrorCode.LEASE_LOST) {
              // The runner sent this id, so naming it in the answer reveals nothing.
              throw new ApiException(
                  ApiError.LEASE_LOST, "lease " + leaseId + " expired or was superseded");
            }
            throw ApiErrors.rejected(rejected);
          }
          return onReply.apply(reply);
        });
  }

  private Route json(Object body) {
    return complete(JsonSupport.response(StatusCodes.OK, body));
  }

  private static <R extends Reply> R expected(Class<R> type, Reply reply) {
    if (type.isInstance(reply)) {
      return type.cast(reply);
    }
    throw new IllegalStateException("unexpected reply from agent: " + reply);
  }
}
