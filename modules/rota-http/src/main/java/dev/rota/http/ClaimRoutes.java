package dev.rota.http;

import dev.rota.cluster.assign.Dispatcher;
import dev.rota.cluster.assign.WorkProtocol.Assigned;
import dev.rota.cluster.assign.WorkProtocol.RequestWork;
import dev.rota.cluster.assign.WorkProtocol.WorkReply;
import dev.rota.http.api.ClaimRequest;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Supplier;
import org.apache.pekko.actor.Cancellable;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.ActorSystem;
import org.apache.pekko.actor.typed.Scheduler;
import org.apache.pekko.actor.typed.javadsl.AskPattern;
import org.apache.pekko.http.javadsl.model.HttpResponse;
import org.apache.pekko.http.javadsl.server.AllDirectives;
import org.apache.pekko.http.javadsl.server.PathMatchers;
import org.apache.pekko.http.javadsl.server.Route;
import scala.concurrent.ExecutionContextExecutor;

/**
 * The claim resource of docs/api.md (runner): {@code POST /v1/claims} asks this node's dispatcher
 * for one activation on behalf of an external runner, waiting up to {@code waitSeconds} for work
 * (long poll). The dispatcher answers the moment work appears.
 *
 * <p>A claim without a wait is answered as one response: the reply, or 503 if the dispatcher has
 * not answered within {@code rota.http.ask-timeout} (the server's request timeout is lifted to that
 * bound). A long poll is answered 200 at once and its body follows when the dispatcher answers, or
 * is {@code {"status": "none"}} after {@code waitSeconds} plus the ask timeout; meanwhile the body
 * carries a space a second (JSON whitespace), which keeps idle timeouts from cutting it and tells
 * the route when the runner's connection is gone ({@link GrantDelivery}).
 *
 * <p>No lease is granted to nobody (issue 11): a grant for a long poll whose connection closed, and
 * a grant that arrives after the route answered, are handed back at once with a snooze of 0 s,
 * which uses no attempt. Only a runner that dies after its assignment left leaves its lease to
 * expire.
 */
public final class ClaimRoutes extends AllDirectives {
  /** Room for the server to answer after the ask's own timeout, with the API's 503. */
  private static final Duration REQUEST_TIMEOUT_MARGIN = Duration.ofSeconds(5);

  /**
   * How much longer than the route waits the ask itself waits, so that a grant that comes after the
   * route answered 503 still reaches this route and is handed back instead of dead-lettered.
   */
  private static final Duration LATE_GRANT_WAIT = Duration.ofSeconds(30);

  private final ActorRef<Dispatcher.Command> dispatcher;
  private final Scheduler scheduler;
  private final GrantDelivery delivery;
  private final ExecutionContextExecutor executor;
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
      ActorSystem<?> system,
      ApiAuth auth,
      HttpSettings settings,
      long defaultLeaseSeconds) {
    this.dispatcher = dispatcher;
    this.scheduler = system.scheduler();
    this.auth = auth;
    this.askTimeout = settings.askTimeout();
    this.delivery = new GrantDelivery(system, askTimeout);
    this.executor = system.executionContext();
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
          if (claim.waitSeconds() > 0) {
            return complete(delivery.longPoll(waiting(() -> ask(claim, wait)), answerWithin));
          }
          return withRequestTimeout(
              answerWithin.plus(REQUEST_TIMEOUT_MARGIN),
              () -> onSuccess(answerNow(ask(claim, wait), answerWithin), this::complete));
        });
  }

  /**
   * Counts a long poll while it waits for the dispatcher; past {@code rota.http.max-long-polls}
   * such claims at once, another is answered 503 at once rather than holding one more connection.
   */
  private CompletionStage<WorkReply> waiting(Supplier<CompletionStage<WorkReply>> ask) {
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

  /**
   * Asks the dispatcher. The ask waits {@link #LATE_GRANT_WAIT} longer than the route does, so that
   * a grant that comes after the route answered still arrives here and is handed back.
   */
  private CompletionStage<WorkReply> ask(ClaimRequest.Claim claim, Duration wait) {
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
        wait.plus(askTimeout).plus(LATE_GRANT_WAIT),
        scheduler);
  }

  /** The strict answer of a claim without a wait: the reply within {@code answerWithin}, or 503. */
  private CompletionStage<HttpResponse> answerNow(
      CompletionStage<WorkReply> reply, Duration answerWithin) {
    CompletableFuture<HttpResponse> answer = new CompletableFuture<>();
    AtomicBoolean answered = new AtomicBoolean();
    Cancellable timeout =
        scheduler.scheduleOnce(
            answerWithin,
            () -> {
              if (answered.compareAndSet(false, true)) {
                answer.completeExceptionally(
                    ApiException.unavailable(
                        "this node's dispatcher did not answer within "
                            + answerWithin.toSeconds()
                            + " s; try again later"));
              }
            },
            executor);
    reply.whenComplete(
        (r, failure) -> {
          timeout.cancel();
          if (!answered.compareAndSet(false, true)) {
            if (r instanceof Assigned late) {
              delivery.late(late.granted());
            }
          } else if (failure != null) {
            answer.completeExceptionally(failure);
          } else {
            try {
              answer.complete(GrantDelivery.strict(r));
            } catch (RuntimeException e) {
              answer.completeExceptionally(e);
            }
          }
        });
    return answer;
  }
}
