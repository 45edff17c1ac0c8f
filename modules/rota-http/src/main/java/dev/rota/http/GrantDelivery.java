package dev.rota.http;

import dev.rota.cluster.assign.ActivationJson;
import dev.rota.cluster.assign.ClaimSettings;
import dev.rota.cluster.assign.ExternalClaim;
import dev.rota.cluster.assign.WorkProtocol.Assigned;
import dev.rota.cluster.assign.WorkProtocol.NoWork;
import dev.rota.cluster.assign.WorkProtocol.Paused;
import dev.rota.cluster.assign.WorkProtocol.Refused;
import dev.rota.cluster.assign.WorkProtocol.WorkReply;
import dev.rota.http.api.ClaimResponse;
import java.time.Duration;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.apache.pekko.Done;
import org.apache.pekko.NotUsed;
import org.apache.pekko.actor.Cancellable;
import org.apache.pekko.actor.CoordinatedShutdown;
import org.apache.pekko.actor.typed.ActorSystem;
import org.apache.pekko.actor.typed.Scheduler;
import org.apache.pekko.http.javadsl.model.ContentTypes;
import org.apache.pekko.http.javadsl.model.HttpEntities;
import org.apache.pekko.http.javadsl.model.HttpResponse;
import org.apache.pekko.http.javadsl.model.StatusCodes;
import org.apache.pekko.stream.javadsl.Source;
import org.apache.pekko.util.ByteString;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import scala.concurrent.ExecutionContextExecutor;

/**
 * Writes a claim's answer to its runner: one strict response for a claim without a wait and for a
 * long poll answered before its first probe, a streamed body for a long poll that waits longer.
 * What the claim decides, and when its lease goes back, is the {@link ExternalClaim}'s; this class
 * only tells it when the runner's connection took the assignment or ended.
 *
 * <p>A long poll ({@code waitSeconds} > 0) answered within one {@link
 * ClaimSettings#probeInterval()} gets one strict response. One that waits longer is answered 200
 * then, and its JSON body follows when the claim is answered. While it waits, the body carries a
 * space at once and every probe interval after (JSON allows whitespace before a value): TCP tells a
 * server that its peer is gone only when it writes (the first write after the peer closed is still
 * accepted, the next one fails), and Pekko HTTP does not read a connection while a request is in
 * flight, so these writes are how the route learns that the runner closed its connection or died.
 * The assignment counts as taken when the connection pulls it.
 *
 * <p>What stays: a runner gone less than about two probes before its grant is not noticed in time
 * (a grant written 80 ms and 600 ms after the close is still written "successfully"); a runner that
 * dies after its assignment left is indistinguishable from one that dies while working; and a claim
 * without a wait is answered as one strict response (its runner has just asked). Those leases
 * expire and count as a retry; the lease rescuer counts them.
 */
final class GrantDelivery {
  private static final Logger log = LoggerFactory.getLogger(GrantDelivery.class);

  private static final ByteString SPACE = ByteString.fromString(" ");

  private final Scheduler scheduler;
  private final ExecutionContextExecutor executor;
  private final Duration probeInterval;
  private final Duration linger;

  /** The bodies of long polls still being written, each completed when its body ends. */
  private final Set<CompletableFuture<Done>> open = ConcurrentHashMap.newKeySet();

  /** When the last long poll body ended ({@link System#nanoTime()}). */
  private volatile long lastEndedNanos;

  GrantDelivery(ActorSystem<?> system, ClaimSettings settings) {
    this.scheduler = system.scheduler();
    this.executor = system.executionContext();
    this.probeInterval = settings.probeInterval();
    this.linger = settings.linger();
    this.lastEndedNanos = System.nanoTime() - linger.toNanos();
    CoordinatedShutdown.get(system)
        .addTask(
            CoordinatedShutdown.PhaseServiceUnbind(), "rota-long-polls-answered", this::answered);
  }

  /**
   * Completes once every open long poll has had its answer written: what the node waits for before
   * its HTTP server terminates. A long poll's 200 left before its body, so to the server's graceful
   * termination it is no request in flight, and its connection is torn down at once, dropping the
   * answer the dispatcher's drain gave it (before-service-unbind). So unbinding waits for the open
   * bodies to end, and then until the linger after the last one ended, for their last bytes to pass
   * the renderer to the socket (the end of a body is seen before its last chunk is written).
   */
  private CompletionStage<Done> answered() {
    if (!open.isEmpty()) {
      log.info("Node shutting down: waiting for {} long polls to be answered", open.size());
    }
    return CompletableFuture.allOf(open.toArray(CompletableFuture[]::new))
        .thenCompose(
            ended -> {
              long left = Math.max(0, lastEndedNanos + linger.toNanos() - System.nanoTime());
              return CompletableFuture.supplyAsync(
                  Done::getInstance, CompletableFuture.delayedExecutor(left, TimeUnit.NANOSECONDS));
            });
  }

  /** The strict 200 answer of a claim that did not wait. */
  static HttpResponse strict(WorkReply reply) {
    return strict(reply, Envelope.NONE);
  }

  /** The strict 200 answer of a claim that did not wait, inside {@code envelope}. */
  static HttpResponse strict(WorkReply reply, Envelope envelope) {
    return HttpResponse.create()
        .withStatus(StatusCodes.OK)
        .withEntity(ContentTypes.APPLICATION_JSON, envelope.around(json(reply)).toArray());
  }

  /**
   * What a claim's JSON answer is written inside: nothing for a claim, the report's fields for the
   * {@code next} of a completion or failure ({@code {"completedAt": "...", "next": <answer>}}).
   * While a long poll waits, its probes' spaces come after the prefix: whitespace before a JSON
   * value, as in a claim's own body.
   */
  record Envelope(ByteString prefix, ByteString suffix) {
    static final Envelope NONE =
        new Envelope(ByteString.emptyByteString(), ByteString.emptyByteString());

    /** The answer inside {@code report}'s JSON object, as its field {@code next}. */
    static Envelope nextOf(Object report) {
      byte[] json = JsonSupport.write(report);
      if (json.length < 2 || json[json.length - 1] != '}') {
        throw new IllegalStateException("a report is a JSON object: " + report);
      }
      ByteString fields = ByteString.fromArray(json, 0, json.length - 1);
      String separator = json.length > 2 ? "," : "";
      return new Envelope(
          fields.concat(ByteString.fromString(separator + "\"next\":")),
          ByteString.fromString("}"));
    }

    ByteString around(ByteString answer) {
      return prefix.concat(answer).concat(suffix);
    }
  }

  /**
   * The 200 answer of a long poll. A claim answered within the first {@link
   * ClaimSettings#probeInterval()} (the busy case: work is waiting) is answered as one strict
   * response, with nothing streamed: until the first probe a streamed body learns nothing about the
   * connection either, so only the cost differs (a stream, a timer and chunked framing per claim;
   * decision 88). A claim still waiting then is answered 200 with a streamed body that carries a
   * space at once and every probe interval after, and the claim's answer when it comes ({@code
   * {"status": "none"}} when none came in time: the runner asks again).
   */
  CompletionStage<HttpResponse> longPoll(ExternalClaim claim) {
    return longPoll(claim, Envelope.NONE);
  }

  /** A long poll whose answer is written inside {@code envelope}. */
  CompletionStage<HttpResponse> longPoll(ExternalClaim claim, Envelope envelope) {
    CompletableFuture<HttpResponse> response = new CompletableFuture<>();
    AtomicBoolean decided = new AtomicBoolean();
    Cancellable late =
        scheduler.scheduleOnce(
            probeInterval,
            () -> {
              if (decided.compareAndSet(false, true)) {
                response.complete(streamed(claim, envelope));
              }
            },
            executor);
    claim
        .answer()
        .whenComplete(
            (reply, failure) -> {
              if (failure != null || !decided.compareAndSet(false, true)) {
                return;
              }
              late.cancel();
              try {
                response.complete(quick(claim, reply, envelope));
              } catch (RuntimeException e) {
                response.completeExceptionally(e);
              }
            });
    return response;
  }

  /** The strict answer of a long poll answered before its first probe. */
  private static HttpResponse quick(ExternalClaim claim, WorkReply reply, Envelope envelope) {
    WorkReply answer = reply instanceof Assigned && !claim.take() ? new NoWork() : reply;
    claim.ended();
    return strict(answer, envelope);
  }

  /** A long poll that waited a probe interval: its answer follows in a streamed body. */
  private HttpResponse streamed(ExternalClaim claim, Envelope envelope) {
    Source<ByteString, NotUsed> result =
        Source.completionStage(claim.answer())
            .flatMapConcat(
                r -> {
                  ByteString json = json(r).concat(envelope.suffix());
                  return r instanceof Assigned
                      ? Source.lazySingle(() -> taken(claim, json))
                      : Source.single(json);
                });
    Source<ByteString, NotUsed> probes =
        Source.tick(Duration.ZERO, probeInterval, SPACE)
            .mapMaterializedValue(cancellable -> NotUsed.getInstance());
    Source<ByteString, NotUsed> entity =
        Source.single(envelope.prefix())
            .filter(prefix -> !prefix.isEmpty())
            .concat(result.merge(probes, true))
            .watchTermination(
                (notUsed, done) -> {
                  CompletableFuture<Done> ended =
                      done.handle(
                              (ok, failure) -> {
                                claim.ended();
                                lastEndedNanos = System.nanoTime();
                                return Done.getInstance();
                              })
                          .toCompletableFuture();
                  open.add(ended);
                  ended.thenRun(() -> open.remove(ended));
                  return notUsed;
                });
    return HttpResponse.create()
        .withStatus(StatusCodes.OK)
        .withEntity(HttpEntities.createChunked(ContentTypes.APPLICATION_JSON, entity));
  }

  /** The connection pulls the assignment: it is taken, unless it was handed back. */
  private static ByteString taken(ExternalClaim claim, ByteString json) {
    if (claim.take()) {
      return json;
    }
    throw new IllegalStateException("the assignment was handed back");
  }

  private static ByteString json(WorkReply reply) {
    return ByteString.fromArray(JsonSupport.write(body(reply)));
  }

  /** The claim answer's JSON object of docs/api.md. */
  static ClaimResponse body(WorkReply reply) {
    if (reply instanceof Assigned assigned) {
      return ClaimResponse.assigned(ActivationJson.assignment(assigned.granted()));
    }
    if (reply instanceof Paused) {
      return ClaimResponse.PAUSED;
    }
    if (reply instanceof NoWork) {
      return ClaimResponse.NONE;
    }
    if (reply instanceof Refused refused) {
      return ClaimResponse.refused(refused.reason(), refused.retryAfterSeconds());
    }
    throw new IllegalStateException("unexpected reply from the dispatcher: " + reply);
  }
}
