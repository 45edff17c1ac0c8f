package dev.rota.http;

import java.util.concurrent.Executor;
import org.apache.pekko.actor.typed.ActorSystem;
import org.apache.pekko.actor.typed.DispatcherSelector;
import org.apache.pekko.http.javadsl.server.AllDirectives;
import org.apache.pekko.http.javadsl.server.Route;

/**
 * The whole HTTP API of a node: every resource's routes joined, with authentication ({@link
 * ApiAuth}) handed to each resource and errors mapped in one place ({@link ApiErrors}), so any
 * request — including an unknown path or a wrong method — is answered in the JSON shape of API.md.
 */
public final class RotaRoutes extends AllDirectives {
  private final ApiErrors errors;
  private final AgentRoutes agentRoutes;

  /**
   * The API as the server binds it: agents are asked through Cluster Sharding (so {@code
   * AgentEntity.init} must have run on this node) and the listing reads {@code directory} on the
   * blocking dispatcher.
   */
  public RotaRoutes(ActorSystem<?> system, HttpSettings settings, AgentDirectory directory) {
    this(system, settings, new AgentGateway(system, settings.askTimeout()), directory);
  }

  /** The API with its own way to reach agents (tests use entities that never answer). */
  public RotaRoutes(
      ActorSystem<?> system, HttpSettings settings, AgentGateway agents, AgentDirectory directory) {
    ApiAuth auth = new ApiAuth(settings);
    Executor blocking = system.dispatchers().lookup(DispatcherSelector.blocking());
    this.errors = new ApiErrors(settings);
    this.agentRoutes = new AgentRoutes(agents, directory, blocking, auth, settings);
  }

  /** The route to bind on the API port. */
  public Route route() {
    return errors.handle(() -> concat(agentRoutes.route()));
  }
}
