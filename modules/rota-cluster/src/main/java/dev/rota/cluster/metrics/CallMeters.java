package dev.rota.cluster.metrics;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import java.time.Duration;
import org.apache.pekko.actor.typed.ActorSystem;
import org.apache.pekko.actor.typed.Extension;
import org.apache.pekko.actor.typed.ExtensionId;

/**
 * The meters of agents working together, for the agents hosted on this node (docs/operations.md):
 * calls made, replies by status, sends given up by reason, and the delivery lag from a turn's
 * completion to its target's acceptance. Calls in flight across the cluster are {@code
 * sum(rota_calls_sent_total) - sum(rota_call_replies_total)}: a call's reply is counted on its
 * caller's node, whichever node made it.
 */
public final class CallMeters implements Extension {
  private final MeterRegistry registry;
  private final Counter sent;
  private final Timer deliveryLag;

  private CallMeters(MeterRegistry registry) {
    this.registry = registry;
    this.sent =
        Counter.builder("rota.calls.sent")
            .description("Calls made by the turns of agents hosted on this node")
            .register(registry);
    this.deliveryLag =
        Timer.builder("rota.send.delivery.lag")
            .description(
                "From the completion that sent a send or reply to its target's acceptance, for"
                    + " senders hosted on this node")
            .publishPercentiles(0.5, 0.99)
            .register(registry);
    for (String status : new String[] {"answered", "failed", "timedOut"}) {
      replied(status, 0);
    }
  }

  public static CallMeters get(ActorSystem<?> system) {
    return Id.INSTANCE.apply(system);
  }

  public void callsSent(int n) {
    sent.increment(n);
  }

  /** A reply to a call reached its caller (or was made there: a timeout, a failure). */
  public void replied(String status) {
    replied(status, 1);
  }

  private void replied(String status, int n) {
    Counter.builder("rota.call.replies")
        .description("Replies to calls, by status, counted on the caller's node")
        .tag("status", status)
        .register(registry)
        .increment(n);
  }

  /** A send or reply given up: its target does not exist, or refused it too long. */
  public void undeliverable(String reason) {
    Counter.builder("rota.sends.undeliverable")
        .description("Sends and replies given up, by reason (not_found, refused)")
        .tag("reason", reason)
        .register(registry)
        .increment();
  }

  public void delivered(Duration lag) {
    deliveryLag.record(lag.isNegative() ? Duration.ZERO : lag);
  }

  private static final class Id extends ExtensionId<CallMeters> {
    static final Id INSTANCE = new Id();

    @Override
    public CallMeters createExtension(ActorSystem<?> system) {
      return new CallMeters(RotaMetrics.get(system).registry());
    }
  }
}
