package dev.rota.http;

import org.apache.pekko.actor.typed.ActorSystem;
import org.apache.pekko.http.javadsl.server.AllDirectives;
import org.apache.pekko.http.javadsl.server.Route;

/** The whole HTTP API of a node: every resource's routes joined, errors mapped in one place. */
public final class RotaRoutes extends AllDirectives {
  private final ActorSystem<?> system;

  public RotaRoutes(ActorSystem<?> system) {
    this.system = system;
  }

  /** The route to bind on the API port. */
  public Route route() {
    return reject();
  }
}
