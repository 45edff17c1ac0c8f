package dev.rota.http;

import dev.rota.cluster.readmodel.EventFeed;
import dev.rota.cluster.readmodel.ReadModel;
import dev.rota.cluster.readmodel.ReadModelException;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import org.apache.pekko.NotUsed;
import org.apache.pekko.actor.typed.ActorSystem;
import org.apache.pekko.http.javadsl.marshalling.sse.EventStreamMarshalling;
import org.apache.pekko.http.javadsl.model.sse.ServerSentEvent;
import org.apache.pekko.http.javadsl.server.AllDirectives;
import org.apache.pekko.http.javadsl.server.PathMatchers;
import org.apache.pekko.http.javadsl.server.Route;
import org.apache.pekko.stream.javadsl.Source;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * {@code GET /v1/events} (role admin): Server-Sent Events, one JSON object per event of the whole
 * cluster from the moment of the request on ({@link EventFeed}), the SSE event type being the
 * object's {@code type}. A heartbeat comment every 15 s keeps idle connections open. The feed reads
 * the journal, so a node without a read model (no database) answers 503 {@code unavailable}.
 */
public final class EventsRoutes extends AllDirectives {
  private static final Logger log = LoggerFactory.getLogger(EventsRoutes.class);
  static final Duration HEARTBEAT = Duration.ofSeconds(15);

  private final ActorSystem<?> system;
  private final ReadModel readModel;
  private final int partitions;
  private final Executor blocking;
  private final ApiAuth auth;

  /**
   * @param readModel null when the node has none: the route answers 503
   * @param blocking where the journal's head is read
   */
  public EventsRoutes(
      ActorSystem<?> system, ReadModel readModel, int partitions, Executor blocking, ApiAuth auth) {
    this.system = system;
    this.readModel = readModel;
    this.partitions = partitions;
    this.blocking = blocking;
    this.auth = auth;
  }

  public Route route() {
    return path(
        PathMatchers.segment("v1").slash("events"),
        () -> auth.require(Role.ADMIN, () -> get(this::events)));
  }

  private Route events() {
    if (readModel == null) {
      throw ApiException.unavailable("this node has no event journal to follow; try another node");
    }
    return onSuccess(
        head(), head -> completeOK(stream(head), EventStreamMarshalling.toEventStream()));
  }

  private Source<ServerSentEvent, NotUsed> stream(long head) {
    return EventFeed.live(system, partitions, head)
        .map(json -> ServerSentEvent.create(json.toString(), json.get("type").asText()))
        .keepAlive(HEARTBEAT, ServerSentEvent::heartbeat);
  }

  private CompletableFuture<Long> head() {
    return CompletableFuture.supplyAsync(
        () -> {
          try {
            return readModel.journalHead();
          } catch (ReadModelException e) {
            log.warn("journal unavailable: {}", e.getMessage(), e.getCause());
            throw ApiException.unavailable("the journal is not available; try again later");
          }
        },
        blocking);
  }
}
