package dev.rota.cluster;

import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.ActorSystem;
import org.apache.pekko.actor.typed.Scheduler;
import org.apache.pekko.actor.typed.javadsl.AskPattern;
import org.apache.pekko.actor.typed.receptionist.Receptionist;
import org.apache.pekko.actor.typed.receptionist.ServiceKey;
import org.apache.pekko.japi.function.Function;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Asks every registered instance of a service (one per node) and collects the answers with the ref
 * that gave each; an instance that does not answer within the timeout is left out (and logged), so
 * one slow node does not stop a round or blind a listing.
 */
public final class ClusterAsk {
  private static final Logger log = LoggerFactory.getLogger(ClusterAsk.class);

  public record Answer<T, R>(ActorRef<T> ref, R reply) {}

  private final ActorSystem<?> system;
  private final Duration timeout;
  private final Scheduler scheduler;

  public ClusterAsk(ActorSystem<?> system, Duration timeout) {
    this.system = system;
    this.timeout = timeout;
    this.scheduler = system.scheduler();
  }

  public <T, R> CompletableFuture<List<Answer<T, R>>> askEveryNode(
      ServiceKey<T> key, Function<ActorRef<R>, T> message) {
    CompletionStage<Receptionist.Listing> listing =
        AskPattern.ask(
            system.receptionist(),
            (ActorRef<Receptionist.Listing> replyTo) -> Receptionist.find(key, replyTo),
            timeout,
            scheduler);
    return listing
        .thenCompose(
            found -> {
              List<CompletableFuture<Optional<Answer<T, R>>>> asks =
                  found.getServiceInstances(key).stream()
                      .map(ref -> askOne(key, ref, message))
                      .toList();
              return CompletableFuture.allOf(asks.toArray(CompletableFuture[]::new))
                  .thenApply(
                      done ->
                          asks.stream()
                              .map(CompletableFuture::join)
                              .flatMap(Optional::stream)
                              .toList());
            })
        .toCompletableFuture();
  }

  /** The replies alone, for callers that do not need to know which node gave each. */
  public <T, R> CompletableFuture<List<R>> repliesOfEveryNode(
      ServiceKey<T> key, Function<ActorRef<R>, T> message) {
    return this.<T, R>askEveryNode(key, message)
        .thenApply(answers -> answers.stream().map(Answer::reply).toList());
  }

  private <T, R> CompletableFuture<Optional<Answer<T, R>>> askOne(
      ServiceKey<T> key, ActorRef<T> ref, Function<ActorRef<R>, T> message) {
    return AskPattern.<T, R>ask(ref, message, timeout, scheduler)
        .thenApply(reply -> Optional.of(new Answer<>(ref, reply)))
        .exceptionally(
            failure -> {
              log.warn("{} at {} did not answer: {}", key.id(), ref.path(), failure.toString());
              return Optional.empty();
            })
        .toCompletableFuture();
  }
}
