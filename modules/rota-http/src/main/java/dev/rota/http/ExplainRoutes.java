package dev.rota.http;

import dev.rota.cluster.agent.AgentEntity;
import dev.rota.cluster.assign.Dispatcher.RunnerSeen;
import dev.rota.cluster.readmodel.ReadModel;
import dev.rota.cluster.readmodel.ReadModelException;
import dev.rota.cluster.runner.RunnerPool;
import dev.rota.cluster.runner.RunnerStatus;
import dev.rota.core.model.AgentExplanation;
import dev.rota.core.model.AgentSummary;
import dev.rota.core.tenant.AgentKeys;
import dev.rota.http.api.Explanation;
import java.time.Instant;
import java.util.Collection;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import org.apache.pekko.http.javadsl.model.StatusCodes;
import org.apache.pekko.http.javadsl.server.AllDirectives;
import org.apache.pekko.http.javadsl.server.PathMatchers;
import org.apache.pekko.http.javadsl.server.Route;

/**
 * {@code GET /v1/agents/{agentId}/explain} (role producer): why an agent is or is not being picked.
 * The agent answers for itself (lease, snooze, pause, minimum interval), the system-control
 * singleton for the pause switch, its tenant's gate for the tenant's caps (a capped tenant only),
 * the dispatchers and pools for the runners that would fit, and the read model for its rank in each
 * order of the rule among the agents of its capability set (as fresh as the read model).
 */
public final class ExplainRoutes extends AllDirectives {
  private final AgentGateway agents;
  private final ClusterGateway cluster;
  private final ReadModel readModel;
  private final Executor blocking;
  private final ApiAuth auth;
  private final TenantResolver tenants;

  public ExplainRoutes(
      AgentGateway agents,
      ClusterGateway cluster,
      ReadModel readModel,
      Executor blocking,
      ApiAuth auth,
      TenantResolver tenants) {
    this.agents = agents;
    this.tenants = tenants;
    this.cluster = cluster;
    this.readModel = readModel;
    this.blocking = blocking;
    this.auth = auth;
  }

  public Route route() {
    return pathPrefix(
        PathMatchers.segment("v1").slash("agents"),
        () ->
            auth.requireCaller(
                Role.PRODUCER,
                caller ->
                    path(
                        PathMatchers.segment().slash("explain"),
                        agentId ->
                            get(
                                () ->
                                    parameterOptional(
                                        "tenant",
                                        tenant ->
                                            explain(
                                                AgentKeys.key(
                                                    tenants.tenantOf(caller, tenant),
                                                    QueryParams.agentId(agentId))))))));
  }

  /** Explains the agent of this key. */
  private Route explain(String agentId) {
    Instant now = Instant.now();
    var agent = agents.ask(agentId, AgentEntity.Get::new).toCompletableFuture();
    var paused = cluster.paused().toCompletableFuture();
    var seen = cluster.runnersSeen().toCompletableFuture();
    var pools = cluster.pools().toCompletableFuture();
    var tenant = cluster.tenantLoad(AgentKeys.tenantOf(agentId)).toCompletableFuture();
    CompletableFuture<Explanation> answer =
        CompletableFuture.allOf(agent, paused, seen, pools, tenant)
            .thenCompose(
                done -> {
                  AgentSummary summary =
                      agent.join() instanceof AgentEntity.AgentDetails d ? d.agent() : null;
                  boolean fits =
                      summary != null
                          && aRunnerFits(
                              Set.copyOf(summary.config().capabilities()),
                              seen.join(),
                              pools.join(),
                              now);
                  var blocked =
                      AgentExplanation.blockedBy(
                          summary, now, paused.join().paused(), fits, tenant.join());
                  return ranked(agentId, summary, blocked, now);
                });
    return onSuccess(answer, e -> complete(JsonSupport.response(StatusCodes.OK, e)));
  }

  private CompletableFuture<Explanation> ranked(
      String agentId, AgentSummary agent, List<AgentExplanation.Block> blocks, Instant now) {
    List<Explanation.Blocked> blockedBy =
        blocks.stream()
            .map(
                b ->
                    b.replies() == null
                        ? new Explanation.Blocked(b.reason(), b.until(), b.detail())
                        : new Explanation.Blocked(
                            b.reason(),
                            b.until(),
                            b.detail(),
                            b.replies().group(),
                            b.replies().answered(),
                            b.replies().of()))
            .toList();
    Explanation.Scheduled scheduled =
        agent == null
            ? new Explanation.Scheduled(null, false)
            : new Explanation.Scheduled(agent.nextFireAt(), agent.scheduleDue(now));
    if (agent == null) {
      return CompletableFuture.completedFuture(
          new Explanation(
              AgentKeys.agentIdOf(agentId),
              AgentKeys.tenantOf(agentId),
              false,
              now,
              blockedBy,
              null,
              null,
              scheduled));
    }
    if (readModel == null) {
      throw ApiException.unavailable("this node has no read model; try another node");
    }
    String capabilities = String.join(",", agent.config().capabilities());
    return CompletableFuture.supplyAsync(
        () -> {
          try {
            Long inboxAhead =
                AgentExplanation.inInboxOrder(agent, now)
                    ? readModel.aheadInInbox(
                        agentId,
                        capabilities,
                        agent.unread(),
                        agent.oldestUnreadAt(),
                        agent.config().priority(),
                        now)
                    : null;
            Long staleAhead =
                AgentExplanation.inStalenessOrder(agent, now)
                    ? readModel.aheadInStaleness(
                        agentId, capabilities, agent.lastActivatedAt(), now)
                    : null;
            return new Explanation(
                AgentKeys.agentIdOf(agentId),
                AgentKeys.tenantOf(agentId),
                blockedBy.isEmpty(),
                now,
                blockedBy,
                new Explanation.InboxRank(agent.unread(), rank(inboxAhead), inboxAhead),
                new Explanation.StalenessRank(
                    agent.lastActivatedAt(), rank(staleAhead), staleAhead),
                scheduled);
          } catch (ReadModelException e) {
            throw ApiException.unavailable("the read model is not available; try again later");
          }
        },
        blocking);
  }

  private static Long rank(Long ahead) {
    return ahead == null ? null : ahead + 1;
  }

  /**
   * Whether a runner that asked for work within {@link RunnerCensus#ACTIVE_WINDOW}, or runs in a
   * pool, offers every capability the agent requires.
   */
  static boolean aRunnerFits(
      Set<String> required,
      Collection<RunnerSeen> seen,
      Collection<RunnerPool.Runners> pools,
      Instant now) {
    Instant since = now.minus(RunnerCensus.ACTIVE_WINDOW);
    for (RunnerSeen runner : seen) {
      if (!runner.lastSeenAt().isBefore(since) && runner.capabilities().containsAll(required)) {
        return true;
      }
    }
    for (RunnerPool.Runners pool : pools) {
      for (RunnerStatus runner : pool.runners()) {
        if (!runner.draining() && runner.capabilities().containsAll(required)) {
          return true;
        }
      }
    }
    return false;
  }
}
