package dev.rota.bench.rota;

import dev.rota.cluster.assign.Dispatcher;
import dev.rota.cluster.runner.RunnerPool;
import dev.rota.cluster.tenant.TenantSharesView;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.javadsl.AskPattern;
import org.apache.pekko.actor.typed.receptionist.Receptionist;

/**
 * What {@link TenantsBench} asks a {@link BenchNode}'s own actors, found through the receptionist:
 * the runner pool, to start the bench's runners, and the dispatcher, for the tenants' shares.
 */
final class NodeActors {
  private NodeActors() {}

  /** Sets the {@code bench} pool to {@code runners} runners, waiting for the pool to register. */
  static void startPool(BenchNode node, int runners) throws Exception {
    var system = node.system();
    Duration ask = Duration.ofSeconds(30);
    ActorRef<RunnerPool.Command> pool = null;
    while (pool == null) {
      Receptionist.Listing listing =
          AskPattern.<Receptionist.Command, Receptionist.Listing>ask(
                  system.receptionist(),
                  replyTo -> Receptionist.find(RunnerPool.SERVICE_KEY, replyTo),
                  ask,
                  system.scheduler())
              .toCompletableFuture()
              .get(30, TimeUnit.SECONDS);
      var pools = listing.getServiceInstances(RunnerPool.SERVICE_KEY);
      if (pools.isEmpty()) {
        Thread.sleep(20);
      } else {
        pool = pools.iterator().next();
      }
    }
    ActorRef<RunnerPool.Command> p = pool;
    AskPattern.<RunnerPool.Command, RunnerPool.SetDesiredReply>ask(
            p,
            replyTo -> new RunnerPool.SetDesired("bench", runners, replyTo),
            ask,
            system.scheduler())
        .toCompletableFuture()
        .get(30, TimeUnit.SECONDS);
  }

  /** The dispatcher's view of each tenant's share of runner time. */
  static TenantSharesView shares(BenchNode node) throws Exception {
    var system = node.system();
    Duration ask = Duration.ofSeconds(10);
    Receptionist.Listing listing =
        AskPattern.<Receptionist.Command, Receptionist.Listing>ask(
                system.receptionist(),
                replyTo -> Receptionist.find(Dispatcher.SERVICE_KEY, replyTo),
                ask,
                system.scheduler())
            .toCompletableFuture()
            .get(10, TimeUnit.SECONDS);
    ActorRef<Dispatcher.Command> dispatcher =
        listing.getServiceInstances(Dispatcher.SERVICE_KEY).iterator().next();
    return AskPattern.<Dispatcher.Command, TenantSharesView>ask(
            dispatcher, Dispatcher.GetTenantShares::new, ask, system.scheduler())
        .toCompletableFuture()
        .get(10, TimeUnit.SECONDS);
  }
}
