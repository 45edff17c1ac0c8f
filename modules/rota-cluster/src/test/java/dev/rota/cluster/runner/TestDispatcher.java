package dev.rota.cluster.runner;

import dev.rota.cluster.agent.AgentEntity;
import dev.rota.cluster.assign.WorkProtocol.Assigned;
import dev.rota.cluster.assign.WorkProtocol.NoWork;
import dev.rota.cluster.assign.WorkProtocol.Paused;
import dev.rota.cluster.assign.WorkProtocol.RequestWork;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.pekko.actor.typed.Behavior;
import org.apache.pekko.actor.typed.javadsl.ActorContext;
import org.apache.pekko.actor.typed.javadsl.Behaviors;
import org.apache.pekko.cluster.sharding.typed.javadsl.ClusterSharding;

/**
 * A test double of the node's Dispatcher (not of the runners under test): it knows a fixed list of
 * agents and, for each request, sends the real {@link AgentEntity.Claim} to them in order through
 * sharding. The first grant is answered {@link Assigned}; with none it tries again every 100 ms
 * until the request's {@code maxWait} is over, then answers {@link NoWork} — the contract of the
 * real dispatcher, minus its index. {@link SetPaused} makes it answer {@link Paused}.
 */
final class TestDispatcher {
  private static final Duration RETRY = Duration.ofMillis(100);

  record SetPaused(boolean paused) {}

  private record Retry(RequestWork request, Instant deadline) {}

  private record Claimed(RequestWork request, Instant deadline, AgentEntity.Granted granted) {}

  private TestDispatcher() {}

  /** Behavior of Object so the test can also send {@link SetPaused}; narrow it to RequestWork. */
  static Behavior<Object> create(List<String> agentIds, AtomicInteger requests) {
    return Behaviors.setup(ctx -> running(ctx, List.copyOf(agentIds), requests, false));
  }

  private static Behavior<Object> running(
      ActorContext<Object> ctx, List<String> agentIds, AtomicInteger requests, boolean paused) {
    return Behaviors.receive(Object.class)
        .onMessage(SetPaused.class, set -> running(ctx, agentIds, requests, set.paused()))
        .onMessage(
            RequestWork.class,
            request -> {
              requests.incrementAndGet();
              if (paused) {
                request.replyTo().tell(new Paused());
              } else {
                claim(ctx, agentIds, request, Instant.now().plus(request.spec().maxWait()));
              }
              return Behaviors.same();
            })
        .onMessage(
            Claimed.class,
            claimed -> {
              if (claimed.granted() != null) {
                claimed.request().replyTo().tell(new Assigned(claimed.granted()));
              } else if (Instant.now().plus(RETRY).isBefore(claimed.deadline())) {
                ctx.scheduleOnce(
                    RETRY, ctx.getSelf(), new Retry(claimed.request(), claimed.deadline()));
              } else {
                claimed.request().replyTo().tell(new NoWork());
              }
              return Behaviors.same();
            })
        .onMessage(
            Retry.class,
            retry -> {
              claim(ctx, agentIds, retry.request(), retry.deadline());
              return Behaviors.same();
            })
        .build();
  }

  private static void claim(
      ActorContext<Object> ctx, List<String> agentIds, RequestWork request, Instant deadline) {
    ctx.pipeToSelf(
        firstGrant(ClusterSharding.get(ctx.getSystem()), agentIds, 0, request),
        (granted, failure) ->
            new Claimed(request, deadline, granted == null ? null : granted.orElse(null)));
  }

  private static CompletionStage<Optional<AgentEntity.Granted>> firstGrant(
      ClusterSharding sharding, List<String> agentIds, int index, RequestWork request) {
    if (index >= agentIds.size()) {
      return CompletableFuture.completedFuture(Optional.empty());
    }
    return sharding
        .entityRefFor(AgentEntity.ENTITY_TYPE_KEY, agentIds.get(index))
        .<AgentEntity.Reply>ask(
            replyTo -> new AgentEntity.Claim(request.spec(), replyTo), Duration.ofSeconds(5))
        .thenCompose(
            reply ->
                reply instanceof AgentEntity.Granted granted
                    ? CompletableFuture.completedFuture(Optional.of(granted))
                    : firstGrant(sharding, agentIds, index + 1, request));
  }
}
