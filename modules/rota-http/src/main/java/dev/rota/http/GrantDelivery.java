package dev.rota.http;

import dev.rota.cluster.agent.AgentEntity;
import dev.rota.cluster.assign.ActivationJson;
import dev.rota.cluster.assign.WorkProtocol.Assigned;
import dev.rota.cluster.assign.WorkProtocol.NoWork;
import dev.rota.cluster.assign.WorkProtocol.Paused;
import dev.rota.cluster.assign.WorkProtocol.WorkReply;
import dev.rota.cluster.metrics.RotaMetrics;
import dev.rota.core.model.FailureAction;
import dev.rota.core.model.Ids;
import dev.rota.http.api.ClaimResponse;
import java.time.Duration;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.pekko.Done;
import org.apache.pekko.NotUsed;
import org.apache.pekko.actor.CoordinatedShutdown;
import org.apache.pekko.actor.typed.ActorSystem;
import org.apache.pekko.cluster.sharding.typed.javadsl.ClusterSharding;
import org.apache.pekko.http.javadsl.model.ContentTypes;
import org.apache.pekko.http.javadsl.model.HttpEntities;
import org.apache.pekko.http.javadsl.model.HttpResponse;
import org.apache.pekko.http.javadsl.model.StatusCodes;
import org.apache.pekko.stream.javadsl.Source;
import org.apache.pekko.util.ByteString;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Gets a granted activation to the runner that claimed it, or gives the lease back when that runner
 * is gone, so that a lease granted to nobody neither blocks its agent until it expires nor uses up
 * an attempt of every notification it carries (issue 11, "no orphaned leases"). A lease is handed
 * back as the dispatcher hands back a grant that arrives after it answered: a {@code snooze} of 0
 * s, which frees the agent at once and uses no attempt.
 *
 * <p>A long poll ({@code waitSeconds} > 0) is answered 200 at once, and its JSON body follows when
 * the dispatcher answers. While it waits, the body carries a space every {@link #PROBE_INTERVAL}
 * (JSON allows whitespace before a value): TCP tells a server that its peer is gone only when it
 * writes (the first write after the peer closed is still accepted, the next one fails), and Pekko
 * HTTP does not read a connection while a request is in flight, so these writes are how the route
 * learns that the runner closed its connection or died. A grant for a long poll whose connection is
 * found gone, now or later, is handed back; the assignment counts as taken when the connection
 * pulls it.
 *
 * <p>What stays: a runner gone less than about two probes before its grant is not noticed in time
 * (measured: a grant 80 ms and 600 ms after the close was still written "successfully"); a runner
 * that dies after its assignment left is indistinguishable from one that dies while working; and a
 * claim without a wait is answered as one strict response (its runner has just asked). Those leases
 * expire and count as a retry; the lease rescuer counts them.
 */
final class GrantDelivery {
  private static final Logger log = LoggerFactory.getLogger(GrantDelivery.class);

  /** How often a waiting long poll checks that its connection is still there. */
  static final Duration PROBE_INTERVAL = Duration.ofMillis(500);

  /** How long a node gives the last bytes of answered long polls before its HTTP server stops. */
  static final Duration LINGER = Duration.ofMillis(500);

  private static final ByteString SPACE = ByteString.fromString(" ");

  private final ActorSystem<?> system;
  private final ClusterSharding sharding;
  private final Duration askTimeout;

  /** The bodies of long polls still being written, each completed when its body ends. */
  private final Set<CompletableFuture<Done>> open = ConcurrentHashMap.newKeySet();

  /** When the last long poll body ended ({@link System#nanoTime()}). */
  private volatile long lastEndedNanos = System.nanoTime() - LINGER.toNanos();

  GrantDelivery(ActorSystem<?> system, Duration askTimeout) {
    this.system = system;
    this.sharding = ClusterSharding.get(system);
    this.askTimeout = askTimeout;
    CoordinatedShutdown.get(system)
        .addTask(
            CoordinatedShutdown.PhaseServiceUnbind(), "rota-long-polls-answered", this::answered);
  }

  /**
   * Completes once every open long poll has had its answer written: what the node waits for before
   * its HTTP server terminates. A long poll's 200 left before its body, so to the server's graceful
   * termination it is no request in flight, and its connection is torn down at once, dropping the
   * answer the dispatcher's drain gave it (before-service-unbind). So unbinding waits for the open
   * bodies to end, and then until {@link #LINGER} after the last one ended, for their last bytes to
   * pass the renderer to the socket (the end of a body is seen before its last chunk is written).
   */
  private CompletionStage<Done> answered() {
    if (!open.isEmpty()) {
      log.info("Node shutting down: waiting for {} long polls to be answered", open.size());
    }
    return CompletableFuture.allOf(open.toArray(CompletableFuture[]::new))
        .thenCompose(
            ended -> {
              long left = Math.max(0, lastEndedNanos + LINGER.toNanos() - System.nanoTime());
              return CompletableFuture.supplyAsync(
                  Done::getInstance, CompletableFuture.delayedExecutor(left, TimeUnit.NANOSECONDS));
            });
  }

  /** The strict 200 answer of a claim that did not wait. */
  static HttpResponse strict(WorkReply reply) {
    return JsonSupport.response(StatusCodes.OK, body(reply));
  }

  /**
   * The 200 answer of a long poll: sent at once, with a body that carries {@code reply} when it
   * comes, or {@code {"status": "none"}} if it has not come within {@code answerWithin} (the runner
   * asks again; a grant that comes later is handed back).
   */
  HttpResponse longPoll(CompletionStage<WorkReply> reply, Duration answerWithin) {
    LongPoll poll = new LongPoll();
    CompletableFuture<WorkReply> answer = new CompletableFuture<>();
    system
        .scheduler()
        .scheduleOnce(answerWithin, () -> answer.complete(new NoWork()), system.executionContext());
    reply.whenComplete(
        (r, failure) -> {
          if (!(r instanceof Assigned assigned)) {
            answer.complete(failure != null ? new NoWork() : r);
          } else if (!poll.offer(assigned.granted())) {
            if (answer.isDone()) {
              // The poll was answered "none" after waitSeconds + the ask timeout, and has ended.
              handBack(assigned.granted(), "claim answered", "late");
            } else {
              handBack(assigned.granted(), "its connection closed", "gone");
            }
          } else if (!answer.complete(r) && poll.withdraw(assigned.granted())) {
            // The poll was answered "none" already.
            handBack(assigned.granted(), "claim answered", "late");
          }
        });
    Source<ByteString, NotUsed> result =
        Source.completionStage(answer)
            .flatMapConcat(
                r -> {
                  ByteString json = ByteString.fromArray(JsonSupport.write(body(r)));
                  return r instanceof Assigned
                      ? Source.lazySingle(() -> poll.taken(json))
                      : Source.single(json);
                });
    Source<ByteString, NotUsed> probes =
        Source.tick(PROBE_INTERVAL, PROBE_INTERVAL, SPACE)
            .mapMaterializedValue(cancellable -> NotUsed.getInstance());
    Source<ByteString, NotUsed> entity =
        result
            .merge(probes, true)
            .watchTermination(
                (notUsed, done) -> {
                  CompletableFuture<Done> ended =
                      done.handle(
                              (ok, failure) -> {
                                poll.ended();
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

  /** A lease granted for a claim that was already answered (its ask timed out): give it back. */
  void late(AgentEntity.Granted granted) {
    handBack(granted, "claim answered before the grant arrived", "late");
  }

  private static ClaimResponse body(WorkReply reply) {
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

  private void handBack(AgentEntity.Granted granted, String why, String reason) {
    String leaseId = granted.lease().leaseId();
    RotaMetrics metrics = RotaMetrics.get(system);
    sharding
        .entityRefFor(AgentEntity.ENTITY_TYPE_KEY, ActivationJson.agentIdOf(granted.lease()))
        .<AgentEntity.Reply>ask(
            replyTo ->
                new AgentEntity.Fail(
                    leaseId,
                    granted.lease().runnerId(),
                    FailureAction.SNOOZE,
                    "runner never took it: " + why,
                    0,
                    replyTo),
            askTimeout)
        .whenComplete(
            (reply, failure) -> {
              if (reply instanceof AgentEntity.Done) {
                metrics.leaseHandedBack(reason);
                log.info("Handed back {}: {}", Ids.leaseLabel(leaseId), why);
              } else {
                // The lease stays until it expires; the lease rescuer then counts it.
                metrics.leaseHandBackFailed();
                log.warn(
                    "Could not hand back {} ({}): {}",
                    Ids.leaseLabel(leaseId),
                    why,
                    failure != null ? failure.toString() : String.valueOf(reply));
              }
            });
  }

  /**
   * One long poll: waiting, then offered a grant, then the grant taken by the connection — or its
   * connection ended first, and the grant (now or when it comes) is handed back. Never both.
   */
  private final class LongPoll {
    private final AtomicReference<Object> state = new AtomicReference<>("waiting");

    /**
     * A grant for this poll, offered before the body may carry it; false if its connection is
     * already gone.
     */
    boolean offer(AgentEntity.Granted granted) {
      return state.compareAndSet("waiting", granted);
    }

    /** Takes back a grant the body will not carry; false if the body already ended. */
    boolean withdraw(AgentEntity.Granted granted) {
      return state.compareAndSet(granted, "gone");
    }

    /** The connection pulls the assignment: it is taken, unless it was handed back. */
    ByteString taken(ByteString json) {
      Object now = state.get();
      if (now instanceof AgentEntity.Granted && state.compareAndSet(now, "taken")) {
        return json;
      }
      throw new IllegalStateException("the assignment was handed back");
    }

    /** The body ended (sent, or its connection closed): a grant not taken goes back. */
    void ended() {
      Object now = state.getAndUpdate(s -> "taken".equals(s) ? s : "gone");
      if (now instanceof AgentEntity.Granted granted) {
        handBack(granted, "its connection closed before the assignment was taken", "gone");
      }
    }
  }
}
