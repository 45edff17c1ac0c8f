package dev.rota.http;

import com.typesafe.config.Config;
import dev.rota.cluster.RotaCluster;
import dev.rota.cluster.health.HealthSettings;
import dev.rota.cluster.metrics.RotaMetrics;
import dev.rota.cluster.runner.executor.WebhookTargets;
import dev.rota.cluster.tenant.TenantTables;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.Executor;
import java.util.function.Supplier;
import org.apache.pekko.actor.typed.ActorSystem;
import org.apache.pekko.actor.typed.DispatcherSelector;
import org.apache.pekko.http.javadsl.server.AllDirectives;
import org.apache.pekko.http.javadsl.server.Route;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The whole HTTP API of a node: every resource's routes joined, with authentication ({@link
 * ApiAuth}) handed to each resource, cross-site requests refused before any ({@link
 * CrossSiteGuard}) and errors mapped in one place ({@link ApiErrors}), so any request — including
 * an unknown path or a wrong method — is answered with the Error body of openapi.yaml.
 */
public final class RotaRoutes extends AllDirectives {
  private static final Logger log = LoggerFactory.getLogger(RotaRoutes.class);
  private static final String IDLE_TIMEOUT = "pekko.http.server.idle-timeout";

  private final ApiErrors errors;
  private final CrossSiteGuard guard;
  private final RequestTelemetry telemetry;
  private final List<Supplier<Route>> resources = new ArrayList<>();

  /**
   * The API as the server binds it, all routes of docs/api.md: agents and leases are asked through
   * Cluster Sharding, claims through this node's dispatcher, the admin views read {@code
   * rota.readModel()} (503 without one) and {@code directory} on the blocking dispatcher.
   */
  public RotaRoutes(RotaCluster rota, HttpSettings settings, AgentDirectory directory) {
    ActorSystem<?> system = rota.system();
    ApiAuth auth = new ApiAuth(settings);
    Executor blocking = system.dispatchers().lookup(DispatcherSelector.blocking());
    AgentGateway agents = new AgentGateway(system, settings.askTimeout());
    RotaMetrics metrics = RotaMetrics.get(system);
    TenantResolver tenants = tenants(system);
    ClaimRoutes claims =
        new ClaimRoutes(
            rota.dispatcher(), system, auth, settings, rota.agentSettings().defaultLeaseSeconds());
    warnIfIdleTimeoutCutsLongPolls(system.settings().config(), claims.longestAnswer());
    this.errors = new ApiErrors(settings);
    this.guard = new CrossSiteGuard(settings);
    this.telemetry = new RequestTelemetry(metrics);
    add(
        new AgentRoutes(agents, directory, blocking, auth, settings, webhooks(system), tenants)
            ::route);
    add(
        new ExplainRoutes(
                agents,
                new ClusterGateway(rota, settings.askTimeout()),
                rota.readModel(),
                blocking,
                auth,
                tenants)
            ::route);
    add(claims::route);
    add(new LeaseRoutes(agents, claims, auth, settings)::route);
    add(new CallRoutes(agents, auth)::route);
    add(
        new RunnerRoutes(
                new ClusterGateway(rota, settings.askTimeout()),
                auth,
                settings,
                HealthSettings.from(system.settings().config()).maxReportSeconds())
            ::route);
    add(
        new AdminRoutes(
                new ClusterGateway(rota, settings.askTimeout()),
                rota.readModel(),
                agents,
                metrics,
                blocking,
                auth,
                tenants)
            ::route);
    add(new MetricsRoutes(metrics, auth)::route);
    add(new OpenApiRoutes()::route);
    add(new DashboardRoutes()::route);
    add(new EventsRoutes(system, rota.readModel(), blocking, auth)::route);
  }

  /**
   * The agent resource alone (no claims, leases or admin): agents are asked through Cluster
   * Sharding (so {@code AgentSharding.init} must have run on this node) and the listing reads
   * {@code directory} on the blocking dispatcher.
   */
  public RotaRoutes(ActorSystem<?> system, HttpSettings settings, AgentDirectory directory) {
    this(system, settings, new AgentGateway(system, settings.askTimeout()), directory);
  }

  /** The agent resource with its own way to reach agents (tests use entities that never answer). */
  public RotaRoutes(
      ActorSystem<?> system, HttpSettings settings, AgentGateway agents, AgentDirectory directory) {
    ApiAuth auth = new ApiAuth(settings);
    Executor blocking = system.dispatchers().lookup(DispatcherSelector.blocking());
    this.errors = new ApiErrors(settings);
    this.guard = new CrossSiteGuard(settings);
    this.telemetry = new RequestTelemetry(RotaMetrics.get(system));
    add(
        new AgentRoutes(
                agents, directory, blocking, auth, settings, webhooks(system), tenants(system))
            ::route);
  }

  private static TenantResolver tenants(ActorSystem<?> system) {
    TenantTables tables = TenantTables.get(system);
    return new TenantResolver(tables::current);
  }

  private static WebhookTargets webhooks(ActorSystem<?> system) {
    return WebhookTargets.from(system.settings().config());
  }

  private void add(Supplier<Route> resource) {
    resources.add(resource);
  }

  /** The route to bind on the API port. */
  public Route route() {
    Route[] routes = resources.stream().map(Supplier::get).toArray(Route[]::new);
    return telemetry.wrap(
        () ->
            errors.handle(
                () ->
                    guard.wrap(
                        () -> concat(routes[0], Arrays.copyOfRange(routes, 1, routes.length)))));
  }

  /**
   * A connection silent for the server's idle timeout is closed, answer or not; a claim may wait up
   * to its longest answer in silence. rota-http's reference.conf raises the timeout; an overlay
   * that lowers it again is told here rather than by runners losing their long polls.
   */
  static void warnIfIdleTimeoutCutsLongPolls(Config config, Duration longestAnswer) {
    if (!config.hasPath(IDLE_TIMEOUT) || "infinite".equals(config.getString(IDLE_TIMEOUT))) {
      return;
    }
    Duration idle = config.getDuration(IDLE_TIMEOUT);
    if (idle.compareTo(longestAnswer) <= 0) {
      log.warn(
          "{} is {} s but a long-poll claim may take up to {} s to answer: the server may close"
              + " the connection first; raise {}",
          IDLE_TIMEOUT,
          idle.toSeconds(),
          longestAnswer.toSeconds(),
          IDLE_TIMEOUT);
    }
  }
}
