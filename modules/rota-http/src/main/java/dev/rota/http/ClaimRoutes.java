package dev.rota.http;

import dev.rota.cluster.assign.ActivationJson;
import dev.rota.cluster.assign.Dispatcher;
import dev.rota.cluster.assign.WorkProtocol.Assigned;
import dev.rota.cluster.assign.WorkProtocol.NoWork;
import dev.rota.cluster.assign.WorkProtocol.Paused;
import dev.rota.cluster.assign.WorkProtocol.RequestWork;
import dev.rota.cluster.assign.WorkProtocol.WorkReply;
import dev.rota.http.api.ClaimRequest;
import dev.rota.http.api.ClaimResponse;
import java.time.Duration;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Supplier;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.Scheduler;
import org.apache.pekko.actor.typed.javadsl.AskPattern;
import org.apache.pekko.http.javadsl.model.StatusCodes;
import org.apache.pekko.http.javadsl.server.AllDirectives;
import org.apache.pekko.http.javadsl.server.PathMatchers;
import org.apache.pekko.http.javadsl.server.Route;

/**
 * The claim resource of API.md (role runner): {@code POST /v1/claims} asks this node's dispatcher
 * for one activation on behalf of an external runner, waiting up to {@code waitSeconds} for work
 * (long poll). The dispatcher answers the moment work appears; the route waits for it {@code
 * waitSeconds} plus {@code rota.http.ask-timeout}, and lifts the server's request timeout for this
 * request to the same bound, so that {@code pekko.http.server.request-timeout} (20 s by default)
 * never cuts a long poll short.
 *
 * <p>A lease granted after the client went away (it disconnected, or the ask timed out) reaches
 * nobody: it expires after its {@code leaseSeconds} and counts as a retry, like any lease whose
 * runner died.
 */
public final class ClaimRoutes extends AllDirectives {
  /** Room for the server to answer after the ask's own timeout, with the API's 503. */
  private static final Duration REQUEST_TIMEOUT_MARGIN = Duration.ofSeconds(5);

  private final ActorRef<Dispatcher.Command> dispatcher;
  private final Scheduler scheduler;
  private final ApiAuth auth;
  private final Duration askTimeout;
  private final long maxBodyBytes;
  private final long defaultLeaseSeconds;
  private final int maxLongPolls;
  private final AtomicInteger longPolls = new AtomicInteger();

  /**
   * @param defaultLeaseSeconds the lease length when a claim names none ({@code
   *     rota.agent.default-lease-seconds})
   */
  public ClaimRoutes(
      ActorRef<Dispatcher.Command> dispatcher,
      Scheduler scheduler,
      ApiAuth auth,
      HttpSettings settings,
      long defaultLeaseSeconds) {
    this.dispatcher = dispatcher;
    this.scheduler = scheduler;
    this.auth = auth;
    this.askTimeout = settings.askTimeout();
    this.maxBodyBytes = settings.maxBodyBytes();
    this.defaultLeaseSeconds = defaultLeaseSeconds;
    this.maxLongPolls = settings.maxLongPolls();
  }

  /** The longest a claim can take to answer: the longest wait plus the ask timeout. */
  public Duration longestAnswer() {
    return Duration.ofSeconds(ClaimRequest.MAX_WAIT_SECONDS).plus(askTimeout);
  }

  public Route route() {
    return path(
        PathMatchers.segment("v1").slash("claims"),
        () -> auth.require(Role.RUNNER, () -> post(this::claim)));
  }

  private Route claim() {
    return JsonSupport.body(
        ClaimRequest.class,
        maxBodyBytes,
        body -> {
          ClaimRequest.Claim claim = body.validated(defaultLeaseSeconds);
          Duration wait = Duration.ofSeconds(claim.waitSeconds());
          Duration answerWithin = wait.plus(askTimeout);
          return withRequestTimeout(
              answerWithin.plus(REQUEST_TIMEOUT_MARGIN),
              () ->
                  onSuccess(
                      waiting(claim, () -> requestWork(claim, wait, answerWithin)),
                      reply -> complete(JsonSupport.response(StatusCodes.OK, response(reply)))));
        });
  }

  /**
   * Counts a claim that may wait for work while it waits; past {@code rota.http.max-long-polls}
   * such claims at once, another is answered 503 at once rather than holding one more connection.
   */
  private CompletionStage<WorkReply> waiting(
      ClaimRequest.Claim claim, Supplier<CompletionStage<WorkReply>> ask) {
    if (claim.waitSeconds() == 0) {
      return ask.get();
    }
    if (longPolls.incrementAndGet() > maxLongPolls) {
      longPolls.decrementAndGet();
      throw ApiException.unavailable(
          "this node already holds "
              + maxLongPolls
              + " waiting claims (rota.http.max-long-polls); try again later");
    }
    try {
      return ask.get().whenComplete((reply, failure) -> longPolls.decrementAndGet());
    } catch (RuntimeException e) {
      longPolls.decrementAndGet();
      throw e;
    }
  }

  /** Claims waiting for work on this node now. */
  int longPolls() {
    return longPolls.get();
  }

  private CompletionStage<WorkReply> requestWork(
      ClaimRequest.Claim claim, Duration wait, Duration answerWithin) {
    return AskPattern.ask(
            dispatcher,
            (ActorRef<WorkReply> replyTo) ->
                new RequestWork(
                    claim.runnerId(),
                    null,
                    claim.mode(),
                    claim.capabilities(),
                    wait,
                    claim.leaseSeconds(),
                    replyTo),
            answerWithin,
            scheduler)
        .exceptionally(
            failure -> {
              if (failure instanceof TimeoutException
                  || failure.getCause() instanceof TimeoutException) {
                throw ApiException.unavailable(
                    "this node's dispatcher did not answer within "
                        + answerWithin.toSeconds()
                        + " s; try again later");
              }
              throw failure instanceof CompletionException c ? c : new CompletionException(failure);
            });
  }

  private static ClaimResponse response(WorkReply reply) {
    if (reply instanceof Assigned assigned) {
      return ClaimResponse.assigned(ActivationJson.assignment(assigned.granted()));
    }
    if (reply instanceof Paused) {
      return ClaimResponse.PAUSED;
    }
    if (reply instanceof NoWork) {
      return ClaimResponse.NONE;
    }
    throw new IllegalStateException("unexpected reply from the dispatcher: " + reply);
  }
}
