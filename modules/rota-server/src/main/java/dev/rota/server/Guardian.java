package dev.rota.server;

import dev.rota.cluster.RotaCluster;
import dev.rota.cluster.runner.RunnerPool;
import dev.rota.cluster.runner.RunnerSettings;
import dev.rota.http.MetricsSampler;
import dev.rota.http.ReadModelAgentDirectory;
import dev.rota.http.RotaRoutes;
import dev.rota.server.RotaSettings.ClusterSettings;
import dev.rota.server.RotaSettings.HttpSettings;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import org.apache.pekko.Done;
import org.apache.pekko.actor.Address;
import org.apache.pekko.actor.CoordinatedShutdown;
import org.apache.pekko.actor.typed.ActorSystem;
import org.apache.pekko.actor.typed.Behavior;
import org.apache.pekko.actor.typed.javadsl.ActorContext;
import org.apache.pekko.actor.typed.javadsl.Behaviors;
import org.apache.pekko.cluster.typed.Cluster;
import org.apache.pekko.cluster.typed.Join;
import org.apache.pekko.http.javadsl.Http;
import org.apache.pekko.http.javadsl.ServerBinding;
import org.apache.pekko.http.javadsl.model.Uri;
import org.apache.pekko.http.javadsl.server.Route;
import org.apache.pekko.http.javadsl.settings.ServerSettings;
import org.apache.pekko.management.cluster.bootstrap.ClusterBootstrap;
import org.apache.pekko.management.javadsl.PekkoManagement;

/**
 * The root actor of a node: wires the cluster, Pekko Management and the HTTP API in {@link
 * Behaviors#setup}, then reports the bound endpoints to whoever started the node ({@link
 * RotaNode}). If any step fails, the failure is reported and the actor system terminates.
 */
public final class Guardian {

  /** Messages the guardian sends itself while the node starts. */
  public sealed interface Command {}

  private record Started(ServerBinding http, Uri management) implements Command {}

  private record StartFailed(Throwable cause) implements Command {}

  /** Where a started node can be reached. */
  public record Endpoints(ServerBinding http, Uri management, Address cluster) {}

  private Guardian() {}

  /**
   * The guardian behavior. {@code started} completes with the node's endpoints once HTTP and
   * management are bound, or exceptionally if starting failed.
   */
  public static Behavior<Command> create(
      RotaSettings settings, Database database, CompletableFuture<Endpoints> started) {
    return Behaviors.setup(
        context -> {
          try {
            wire(context, settings, database);
          } catch (RuntimeException e) {
            started.completeExceptionally(e);
            throw e;
          }
          return starting(context, database, started);
        });
  }

  /** Starts every part of the node; each step is one call. */
  private static void wire(
      ActorContext<Command> context, RotaSettings settings, Database database) {
    ActorSystem<?> system = context.getSystem();
    closeOnShutdown(system, database);
    joinCluster(system, settings.cluster());
    CompletionStage<Uri> management = startManagement(system, settings.cluster());
    RotaCluster rota = RotaCluster.start(system, database.dataSource());
    RunnerPool.init(
        system, rota.dispatcher().narrow(), RunnerSettings.from(system.settings().config()));
    dev.rota.http.HttpSettings httpSettings =
        dev.rota.http.HttpSettings.from(system.settings().config());
    Route routes =
        new RotaRoutes(rota, httpSettings, new ReadModelAgentDirectory(database.dataSource()))
            .route();
    MetricsSampler.start(rota, httpSettings);
    NodeReadiness readiness = NodeReadiness.get(system);
    CompletionStage<ServerBinding> http =
        bindHttp(system, settings.http(), new ServingGate(readiness).wrap(routes))
            .thenApply(
                bound -> {
                  readiness.apiBound();
                  return bound;
                });
    context.pipeToSelf(
        http.thenCombine(management, Started::new),
        (up, failure) -> up != null ? up : new StartFailed(failure));
  }

  /** Closes the node's pool after everything that may use it has stopped. */
  private static void closeOnShutdown(ActorSystem<?> system, Database database) {
    CoordinatedShutdown.get(system)
        .addTask(
            CoordinatedShutdown.PhaseBeforeActorSystemTerminate(),
            "close-database",
            () -> {
              database.close();
              return CompletableFuture.completedFuture(Done.getInstance());
            });
  }

  /**
   * With neither seed nodes (Pekko joins those itself, from config) nor bootstrap, the node joins
   * itself and forms a single-node cluster.
   */
  private static void joinCluster(ActorSystem<?> system, ClusterSettings cluster) {
    if (cluster.joinsSelf()) {
      Cluster self = Cluster.get(system);
      self.manager().tell(Join.create(self.selfMember().address()));
    }
  }

  /** Health checks and cluster membership over HTTP; cluster bootstrap needs it running. */
  private static CompletionStage<Uri> startManagement(
      ActorSystem<?> system, ClusterSettings cluster) {
    CompletionStage<Uri> management =
        explainFailure(
            PekkoManagement.get(system).start(),
            "Pekko Management cannot bind "
                + system.settings().config().getString("pekko.management.http.hostname")
                + ":"
                + system.settings().config().getString("pekko.management.http.port"));
    if (cluster.bootstrap()) {
      ClusterBootstrap.get(system).start();
    }
    return management;
  }

  /** Binds the API with the body-size limit; unbinds in CoordinatedShutdown's service-unbind. */
  private static CompletionStage<ServerBinding> bindHttp(
      ActorSystem<?> system, HttpSettings http, Route routes) {
    ServerSettings defaults = ServerSettings.create(system.classicSystem());
    ServerSettings limited =
        defaults.withParserSettings(
            defaults.getParserSettings().withMaxContentLength(http.maxBodyBytes()));
    CompletionStage<ServerBinding> binding =
        Http.get(system)
            .newServerAt(http.interfaceName(), http.port())
            .withSettings(limited)
            .bind(routes)
            .thenApply(bound -> bound.addToCoordinatedShutdown(http.terminationDeadline(), system));
    return explainFailure(
        binding, "HTTP API cannot bind " + http.interfaceName() + ":" + http.port());
  }

  /** Turns a failure of {@code stage} into a one-line {@link StartupException} saying what. */
  private static <T> CompletionStage<T> explainFailure(CompletionStage<T> stage, String what) {
    return stage.handle(
        (value, failure) -> {
          if (failure != null) {
            throw new StartupException(what + ": " + Failures.rootMessage(failure), failure);
          }
          return value;
        });
  }

  private static Behavior<Command> starting(
      ActorContext<Command> context, Database database, CompletableFuture<Endpoints> started) {
    return Behaviors.receive(Command.class)
        .onMessage(
            Started.class,
            up -> {
              Endpoints endpoints =
                  new Endpoints(
                      up.http(),
                      up.management(),
                      Cluster.get(context.getSystem()).selfMember().address());
              context
                  .getLog()
                  .info(
                      "Rota node up: http://{}, management {}, cluster {}, database {}",
                      hostAndPort(up.http()),
                      up.management(),
                      endpoints.cluster(),
                      database.describe());
              started.complete(endpoints);
              return Behaviors.empty();
            })
        .onMessage(
            StartFailed.class,
            failed -> {
              started.completeExceptionally(Failures.unwrap(failed.cause()));
              return Behaviors.stopped();
            })
        .build();
  }

  private static String hostAndPort(ServerBinding binding) {
    return binding.localAddress().getHostString() + ":" + binding.localAddress().getPort();
  }
}
