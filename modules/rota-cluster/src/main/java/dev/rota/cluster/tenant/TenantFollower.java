package dev.rota.cluster.tenant;

import dev.rota.cluster.metrics.RotaMetrics;
import dev.rota.cluster.tenant.TenantDirectory.Listing;
import java.time.Duration;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.ActorSystem;
import org.apache.pekko.actor.typed.Behavior;
import org.apache.pekko.actor.typed.Props;
import org.apache.pekko.actor.typed.javadsl.ActorContext;
import org.apache.pekko.actor.typed.javadsl.Behaviors;
import org.apache.pekko.actor.typed.pubsub.Topic;

/**
 * This node's follower of the tenant directory: applies every listing the directory publishes to
 * {@link TenantTables} (and to the tenant labels of {@link RotaMetrics}). A node that starts after
 * the directory published, or misses a publication, also asks the directory: at start until it
 * answers, then every {@link #REFRESH}. A listing older than the one applied is ignored.
 */
final class TenantFollower {
  static final Duration RETRY = Duration.ofSeconds(2);
  static final Duration REFRESH = Duration.ofSeconds(30);

  private sealed interface Message {}

  private record Published(Listing listing) implements Message {}

  private enum Ask implements Message {
    INSTANCE
  }

  private TenantFollower() {}

  static void start(
      ActorSystem<?> system,
      ActorRef<TenantDirectory.Command> directory,
      ActorRef<Topic.Command<Listing>> topic) {
    TenantTables tables = TenantTables.get(system);
    RotaMetrics metrics = RotaMetrics.get(system);
    metrics.tenants().tenantsKnown(tables.current().tenants().keySet());
    system.systemActorOf(
        behavior(directory, topic, tables, metrics), "rota-tenant-follower", Props.empty());
  }

  static Behavior<Message> behavior(
      ActorRef<TenantDirectory.Command> directory,
      ActorRef<Topic.Command<Listing>> topic,
      TenantTables tables,
      RotaMetrics metrics) {
    return Behaviors.setup(
        ctx ->
            Behaviors.withTimers(
                timers -> {
                  ActorRef<Listing> published = ctx.messageAdapter(Listing.class, Published::new);
                  topic.tell(Topic.subscribe(published));
                  timers.startTimerWithFixedDelay(Ask.INSTANCE, Duration.ZERO, RETRY);
                  return following(ctx, directory, published, tables, metrics, -1, timers);
                }));
  }

  private static Behavior<Message> following(
      ActorContext<Message> ctx,
      ActorRef<TenantDirectory.Command> directory,
      ActorRef<Listing> published,
      TenantTables tables,
      RotaMetrics metrics,
      long applied,
      org.apache.pekko.actor.typed.javadsl.TimerScheduler<Message> timers) {
    return Behaviors.receive(Message.class)
        .onMessageEquals(
            Ask.INSTANCE,
            () -> {
              directory.tell(new TenantDirectory.GetTenants(published));
              return Behaviors.same();
            })
        .onMessage(
            Published.class,
            msg -> {
              if (applied < 0) {
                // The first answer: from now on a refresh now and then is enough.
                timers.startTimerWithFixedDelay(Ask.INSTANCE, REFRESH, REFRESH);
              }
              Listing listing = msg.listing();
              if (listing.revision() < applied) {
                return Behaviors.same();
              }
              if (!listing.table().equals(tables.current())) {
                tables.update(listing.table());
                metrics.tenants().tenantsKnown(listing.table().tenants().keySet());
              }
              return following(
                  ctx, directory, published, tables, metrics, listing.revision(), timers);
            })
        .build();
  }
}
