package dev.rota.http;

import dev.rota.cluster.assign.ClaimSettings;
import dev.rota.cluster.assign.Dispatcher;
import dev.rota.cluster.assign.ExternalClaim;
import dev.rota.cluster.assign.WorkProtocol.NoWork;
import dev.rota.core.model.ClaimSpec;
import dev.rota.http.api.ClaimRequest;
import java.time.Duration;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.ActorSystem;
import org.apache.pekko.http.javadsl.model.HttpResponse;
import org.apache.pekko.http.javadsl.server.AllDirectives;
import org.apache.pekko.http.javadsl.server.PathMatchers;
import org.apache.pekko.http.javadsl.server.Route;

/**
 * The claim resource of docs/api.md (runner): {@code POST /v1/claims} asks this node's dispatcher
 * for one activation on behalf of an external runner, waiting up to {@code waitSeconds} for work
 * (long poll). The claim's life, its states and its time-outs are the {@link ExternalClaim}'s in
 * {@code assign}; this route parses the request and writes the answer.
 *
 * <p>A claim without a wait is answered as one response: the reply, or 503 if the dispatcher has
 * not answered within {@code rota.http.ask-timeout} (the server's request timeout is lifted to that
 * bound). A long poll is answered 200 at once and its body follows ({@link GrantDelivery}).
 */
public final class ClaimRoutes extends AllDirectives {
  private final ActorRef<Dispatcher.Command> dispatcher;
  private final ActorSystem<?> system;
  private final ClaimSettings claims;
  private final GrantDelivery delivery;
  private final ApiAuth auth;
  private final long maxBodyBytes;
  private final long defaultLeaseSeconds;
  private final LongPolls longPolls;

  /**
   * @param defaultLeaseSeconds the lease length when a claim names none ({@code
   *     rota.agent.default-lease-seconds})
   */
  public ClaimRoutes(
      ActorRef<Dispatcher.Command> dispatcher,
      ActorSystem<?> system,
      ApiAuth auth,
      HttpSettings settings,
      long defaultLeaseSeconds) {
    this(dispatcher, system, auth, settings, defaultLeaseSeconds, new LongPolls(settings));
  }

  /**
   * @param longPolls the node's count of waiting requests, shared with the input long poll
   */
  ClaimRoutes(
      ActorRef<Dispatcher.Command> dispatcher,
      ActorSystem<?> system,
      ApiAuth auth,
      HttpSettings settings,
      long defaultLeaseSeconds,
      LongPolls longPolls) {
    this.dispatcher = dispatcher;
    this.system = system;
    this.auth = auth;
    this.claims =
        ClaimSettings.from(system.settings().config()).withAnswerMargin(settings.askTimeout());
    this.delivery = new GrantDelivery(system, claims);
    this.maxBodyBytes = settings.maxBodyBytes();
    this.defaultLeaseSeconds = defaultLeaseSeconds;
    this.longPolls = longPolls;
  }

  /** The longest a claim can take to answer: the longest wait plus the ask timeout. */
  public Duration longestAnswer() {
    return ExternalClaim.answerWithin(Duration.ofSeconds(ClaimRequest.MAX_WAIT_SECONDS), claims);
  }

  public Route route() {
    return path(
        PathMatchers.segment("v1").slash("claims"),
        () -> auth.requireCaller(Role.RUNNER, caller -> post(() -> claim(caller))));
  }

  private Route claim(Caller caller) {
    return JsonSupport.body(
        ClaimRequest.class,
        maxBodyBytes,
        body -> {
          ClaimSpec claim = body.validated(defaultLeaseSeconds);
          caller.requireRunner(claim.runnerId());
          ClaimSpec served = served(caller, claim);
          if (served.longPoll()) {
            return completeWithFuture(delivery.longPoll(waiting(served, caller)));
          }
          Duration answerWithin = ExternalClaim.answerWithin(served.maxWait(), claims);
          return withRequestTimeout(
              answerWithin.plus(claims.requestTimeoutMargin()),
              () ->
                  onSuccess(
                      answerNow(ExternalClaim.ask(system, dispatcher, claims, served)),
                      this::complete));
        });
  }

  /** The claim as it is asked: serving the tenants {@link #servedTenants} gives it. */
  private static ClaimSpec served(Caller caller, ClaimSpec claim) {
    return claim.withTenants(servedTenants(caller, claim.tenants()));
  }

  /** The lease length of a claim that names none. */
  long defaultLeaseSeconds() {
    return defaultLeaseSeconds;
  }

  /**
   * The longest the answer of a report's next claim takes once the report is answered: a claim
   * without a wait is answered within its settle and answer margin, a long poll within its first
   * probe (then its body follows).
   */
  Duration longestNextAnswer() {
    return ExternalClaim.answerWithin(Duration.ZERO, claims)
        .plus(claims.probeInterval())
        .plus(claims.requestTimeoutMargin());
  }

  /**
   * The claim a completion or failure carries as {@code next}, made once that report is durable and
   * answered inside its body (LeaseRoutes): exactly a claim of its runner, long poll included,
   * except that it is never an error, because the report it rides on already happened. Where a
   * claim would be 503 (this node holds too many long polls, or the dispatcher did not answer in
   * time) the next claim answers {@code {"status": "none"}} and the runner asks again.
   */
  CompletionStage<HttpResponse> claimAfterReport(
      Caller caller, ClaimSpec claim, GrantDelivery.Envelope envelope) {
    ClaimSpec served = served(caller, claim);
    if (served.longPoll()) {
      ExternalClaim waiting;
      try {
        waiting = waiting(served, caller);
      } catch (ApiException full) {
        return CompletableFuture.completedFuture(GrantDelivery.strict(new NoWork(), envelope));
      }
      return delivery.longPoll(waiting, envelope);
    }
    return ExternalClaim.ask(system, dispatcher, claims, served)
        .answer()
        .handle(
            (reply, failure) ->
                GrantDelivery.strict(failure == null ? reply : new NoWork(), envelope));
  }

  /**
   * The tenants a claim serves: those it names, each one its token may use (403 otherwise), or all
   * of its token's (empty: every tenant).
   */
  static Set<String> servedTenants(Caller caller, Set<String> named) {
    if (named.isEmpty()) {
      return caller.tenants();
    }
    for (String tenant : named) {
      if (!caller.mayUse(tenant)) {
        throw new ApiException(
            ApiError.FORBIDDEN, "this token may not serve tenant '" + tenant + "'");
      }
    }
    return named;
  }

  /** Asks the dispatcher with a wait, holding a place among this node's long polls meanwhile. */
  private ExternalClaim waiting(ClaimSpec served, Caller caller) {
    LongPolls.Slot slot = longPolls.enter(caller);
    try {
      ExternalClaim claim = ExternalClaim.ask(system, dispatcher, claims, served);
      claim.replied().whenComplete((reply, failure) -> slot.release());
      return claim;
    } catch (RuntimeException e) {
      slot.release();
      throw e;
    }
  }

  /** Claims and waits for input waiting on this node now. */
  int longPolls() {
    return longPolls.waiting();
  }

  /** The node's long polls, which a runner's wait for new input counts in too. */
  LongPolls waitingRequests() {
    return longPolls;
  }

  /** The strict answer of a claim without a wait: the reply, or 503 when it has none in time. */
  private CompletionStage<HttpResponse> answerNow(ExternalClaim claim) {
    CompletableFuture<HttpResponse> response = new CompletableFuture<>();
    claim
        .answer()
        .whenComplete(
            (reply, failure) -> {
              if (failure instanceof ExternalClaim.Unanswered unanswered) {
                response.completeExceptionally(
                    ApiException.unavailable(
                        "this node's dispatcher did not answer within "
                            + unanswered.within().toSeconds()
                            + " s; try again later"));
              } else if (failure != null) {
                response.completeExceptionally(failure);
              } else {
                try {
                  response.complete(GrantDelivery.strict(reply));
                } catch (RuntimeException e) {
                  response.completeExceptionally(e);
                }
              }
            });
    return response;
  }
}
