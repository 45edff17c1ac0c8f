package dev.rota.cluster;

import java.time.Duration;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.RecipientRef;
import org.apache.pekko.actor.typed.javadsl.ActorContext;
import org.apache.pekko.japi.function.Function;
import org.apache.pekko.japi.function.Function2;
import org.apache.pekko.util.Timeout;
import scala.reflect.ClassTag$;

/**
 * {@link ActorContext#ask} without its detour. The Java DSL's ask (and {@code pipeToSelf} of a
 * stage Pekko returns) hands the answer to a {@code CompletionStage} whose callbacks run
 * asynchronously on {@code ForkJoinPool.commonPool()} — and where that pool has fewer than two
 * threads, as on a two-core machine, {@code CompletableFuture} starts a new thread for every
 * callback. On the paths every activation takes (runner → dispatcher, coordinator → agent, runner →
 * agent) that measured as one thread start per ask. The Scala DSL's ask, used here, delivers the
 * answer to the actor straight from the thread that completes it.
 */
public final class Asks {
  private Asks() {}

  /** As {@link ActorContext#ask}, with the same arguments and the same timeout behaviour. */
  public static <T, Req, Res> void ask(
      ActorContext<T> ctx,
      Class<Res> responseClass,
      RecipientRef<Req> target,
      Duration timeout,
      Function<ActorRef<Res>, Req> createRequest,
      Function2<Res, Throwable, T> applyToResponse) {
    scala.Function1<ActorRef<Res>, Req> create =
        replyTo -> {
          try {
            return createRequest.apply(replyTo);
          } catch (Exception e) {
            throw new IllegalStateException(e);
          }
        };
    scala.Function1<scala.util.Try<Res>, T> apply =
        answer -> {
          try {
            return answer.isSuccess()
                ? applyToResponse.apply(answer.get(), null)
                : applyToResponse.apply(null, answer.failed().get());
          } catch (Exception e) {
            throw new IllegalStateException(e);
          }
        };
    ctx.asScala()
        .ask(
            target, create, apply, Timeout.create(timeout), ClassTag$.MODULE$.apply(responseClass));
  }
}
