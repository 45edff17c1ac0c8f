package dev.rota.cluster.tenant;

import dev.rota.cluster.CborSerializable;
import dev.rota.cluster.metrics.RotaMetrics;
import dev.rota.cluster.metrics.TenantMeters.TenantMinute;
import java.util.Map;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.ActorSystem;
import org.apache.pekko.actor.typed.Behavior;
import org.apache.pekko.actor.typed.Props;
import org.apache.pekko.actor.typed.javadsl.Behaviors;
import org.apache.pekko.actor.typed.receptionist.Receptionist;
import org.apache.pekko.actor.typed.receptionist.ServiceKey;

/**
 * One per node, found through the receptionist: answers what this node counted for each tenant over
 * the last minute (leases granted to the agents it hosts, and the runner time of their leases that
 * ended, {@link dev.rota.cluster.metrics.TenantMeters#lastMinute()}). The admin's tenant view asks
 * every node and adds the answers up.
 */
public final class TenantUsage {
  public static final ServiceKey<Command> SERVICE_KEY =
      ServiceKey.create(Command.class, "rota-tenant-usage");

  public sealed interface Command extends CborSerializable {}

  public record GetUsage(ActorRef<Usage> replyTo) implements Command {}

  /** This node's last minute by tenant label (tenants with nothing in it are left out). */
  public record Usage(Map<String, TenantMinute> tenants) implements CborSerializable {}

  private TenantUsage() {}

  /** Starts this node's instance and registers it. */
  public static void init(ActorSystem<?> system) {
    system.systemActorOf(behavior(RotaMetrics.get(system)), "rota-tenant-usage", Props.empty());
  }

  static Behavior<Command> behavior(RotaMetrics metrics) {
    return Behaviors.setup(
        ctx -> {
          ctx.getSystem().receptionist().tell(Receptionist.register(SERVICE_KEY, ctx.getSelf()));
          return Behaviors.receive(Command.class)
              .onMessage(
                  GetUsage.class,
                  msg -> {
                    msg.replyTo().tell(new Usage(Map.copyOf(metrics.tenants().lastMinute())));
                    return Behaviors.same();
                  })
              .build();
        });
  }
}
