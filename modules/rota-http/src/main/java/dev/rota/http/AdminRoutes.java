package dev.rota.http;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.TextNode;
import dev.rota.cluster.agent.AgentEntity;
import dev.rota.cluster.agent.AgentEntity.Done;
import dev.rota.cluster.agent.AgentEntity.Rejected;
import dev.rota.cluster.assign.Dispatcher.RunnerSeen;
import dev.rota.cluster.health.RunnerHealth;
import dev.rota.cluster.metrics.RotaMetrics;
import dev.rota.cluster.pool.PoolsReport;
import dev.rota.cluster.readmodel.Counter;
import dev.rota.cluster.readmodel.DeadLetterRow;
import dev.rota.cluster.readmodel.ReadModel;
import dev.rota.cluster.readmodel.ReadModelStats;
import dev.rota.cluster.rescue.StorageReport;
import dev.rota.cluster.runner.RunnerPool;
import dev.rota.core.model.Ids;
import dev.rota.core.pool.Capacity;
import dev.rota.core.tenant.AgentKeys;
import dev.rota.http.api.AdminStats;
import dev.rota.http.api.DeadLetterList;
import dev.rota.http.api.DeadLetterList.DeadLetterView;
import dev.rota.http.api.PauseView;
import dev.rota.http.api.Redriven;
import dev.rota.http.api.RunnerHealthRequest;
import dev.rota.http.api.RunnerHealthState;
import dev.rota.http.api.RunnerList;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.Executor;
import java.util.function.Function;
import org.apache.pekko.http.javadsl.model.StatusCodes;
import org.apache.pekko.http.javadsl.server.AllDirectives;
import org.apache.pekko.http.javadsl.server.PathMatchers;
import org.apache.pekko.http.javadsl.server.Route;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The admin resource of docs/api.md (role admin), {@code /admin}: stats, the system pause switch,
 * runners, pools ({@link PoolRoutes}), tenants ({@link TenantRoutes}), dead letters, their redrive
 * and their discard. Stats, runners and dead letters read the read model on the blocking
 * dispatcher; a node started without one (or a read model that fails) answers them 503 {@code
 * unavailable}. Pause, resume, redrive and discard need only the cluster.
 */
public final class AdminRoutes extends AllDirectives {
  private static final Logger log = LoggerFactory.getLogger(AdminRoutes.class);

  static final int DEFAULT_DEAD_LETTER_LIMIT = 100;
  static final int MAX_DEAD_LETTER_LIMIT = 1000;

  private final ClusterGateway cluster;
  private final ReadModelReads reads;
  private final AgentGateway agents;
  private final RotaMetrics metrics;
  private final ApiAuth auth;
  private final PoolRoutes pools;
  private final TenantRoutes tenantRoutes;
  private final Duration targetStaleness;
  private final TenantResolver tenants;

  /**
   * @param readModel null when the node has none: the routes that read it answer 503
   * @param blocking where the (blocking) read model is queried
   */
  public AdminRoutes(
      ClusterGateway cluster,
      ReadModel readModel,
      AgentGateway agents,
      RotaMetrics metrics,
      Executor blocking,
      ApiAuth auth,
      TenantResolver tenants) {
    this.tenants = tenants;
    this.cluster = cluster;
    this.reads = new ReadModelReads(readModel, blocking);
    this.agents = agents;
    this.metrics = metrics;
    this.auth = auth;
    this.pools = new PoolRoutes(cluster);
    this.tenantRoutes = new TenantRoutes(cluster, readModel, blocking);
    this.targetStaleness = cluster.targetStaleness();
  }

  public Route route() {
    return pathPrefix(
        "admin",
        () ->
            concat(
                pathPrefix(
                    "dead-letters", () -> auth.requireCaller(Role.ADMIN, this::deadLetterRoutes)),
                auth.require(
                    Role.ADMIN,
                    () ->
                        concat(
                            path("stats", () -> get(this::stats)),
                            path("pause", () -> post(() -> setPaused(true))),
                            path("resume", () -> post(() -> setPaused(false))),
                            path("runners", () -> get(this::runners)),
                            path(
                                PathMatchers.segment("runners")
                                    .slash(PathMatchers.segment())
                                    .slash("drain"),
                                id -> post(() -> runnerChange(id, cluster::drainRunner))),
                            path(
                                PathMatchers.segment("runners")
                                    .slash(PathMatchers.segment())
                                    .slash("restore"),
                                id -> post(() -> runnerChange(id, cluster::restoreRunner))),
                            path("pools", () -> get(pools::route)),
                            pathPrefix("tenants", tenantRoutes::route)))));
  }

  /**
   * Dead letters work inside tenants: a token scoped to tenants lists, redrives and discards only
   * its tenants' (another tenant's dead-letter id is 404, as if it did not exist).
   */
  private Route deadLetterRoutes(Caller caller) {
    return concat(
        pathEnd(() -> get(() -> deadLetters(caller))),
        path(PathMatchers.segment(), id -> delete(() -> discard(caller, id))),
        path(PathMatchers.segment().slash("redrive"), id -> post(() -> redrive(caller, id))));
  }

  /** What the read model says at one moment: totals and who holds which lease. */
  private record Snapshot(ReadModelStats stats, Map<String, String> leases) {}

  private Route stats() {
    return parameterOptional(
        PoolRoutes.TARGET_PARAM,
        param -> {
          Duration target = PoolRoutes.targetStaleness(param).orElse(targetStaleness);
          Instant now = Instant.now();
          CompletableFuture<Snapshot> snapshot =
              read(rm -> new Snapshot(rm.stats(now), rm.leasesByRunner()));
          var paused = cluster.paused().toCompletableFuture();
          var seen = cluster.runnersSeen().toCompletableFuture();
          var pools = cluster.pools().toCompletableFuture();
          var scaler = cluster.poolsReport().toCompletableFuture();
          var storage = cluster.storage().toCompletableFuture();
          var all =
              CompletableFuture.allOf(snapshot, paused, seen, pools, scaler, storage)
                  .thenApply(
                      done ->
                          stats(
                              snapshot.join(),
                              paused.join().paused(),
                              RunnerCensus.of(
                                  now, seen.join(), pools.join(), snapshot.join().leases()),
                              scaler.join().map(PoolsReport::desired),
                              target,
                              storage.join().map(AdminRoutes::storage).orElse(null)));
          return onSuccess(all, this::ok);
        });
  }

  private AdminStats stats(
      Snapshot snapshot,
      boolean paused,
      RunnerCensus runners,
      Optional<Long> scalerDesired,
      Duration targetStaleness,
      AdminStats.Storage storage) {
    ReadModelStats s = snapshot.stats();
    Duration meanActivation = metrics.meanActivationDuration();
    return new AdminStats(
        paused,
        new AdminStats.Agents(s.registered(), s.withInbox(), s.leased(), s.paused()),
        new AdminStats.Inbox(s.unread(), s.oldestUnreadAge().toSeconds()),
        new AdminStats.Activations(
            s.counter(Counter.ACTIVATIONS_INBOX),
            s.counter(Counter.ACTIVATIONS_SCHEDULED),
            s.counter(Counter.ACTIVATIONS_EXPLORATION),
            s.counter(Counter.ACTIVATIONS_COMPLETED),
            s.counter(Counter.ACTIVATIONS_FAILED),
            s.counter(Counter.ACTIVATIONS_EXPIRED),
            s.counter(Counter.ACTIVATIONS_INTERRUPTED),
            rounded(metrics.assignmentsPerSecond1m())),
        new AdminStats.Latency(
            rounded(metrics.claimMillis(0.5)),
            rounded(metrics.claimMillis(0.99)),
            rounded(metrics.inboxWaitMillis(0.5)),
            rounded(metrics.inboxWaitMillis(0.99))),
        new AdminStats.Fairness(
            s.maxStaleness().toSeconds(),
            idealIntervalSeconds(s.registered(), meanActivation, runners.active()),
            PoolRoutes.seconds(meanActivation),
            targetStaleness.toSeconds(),
            Capacity.runnersFor(Map.of(0L, s.registered()), meanActivation, targetStaleness)),
        new AdminStats.Runners(
            runners.active(), runners.busy(), scalerDesired.orElse(runners.desired())),
        s.deadLetters(),
        new AdminStats.Cluster(cluster.nodesUp(), cluster.partitions()),
        new AdminStats.ReadModel(s.skippedEvents()),
        storage);
  }

  /** -1, the gauges' "the database does not tell", is null on the wire. */
  private static AdminStats.Storage storage(StorageReport r) {
    return new AdminStats.Storage(
        r.journalRows(),
        r.journalBytes() < 0 ? null : r.journalBytes(),
        r.oldestEventAge().toSeconds(),
        r.retention().toSeconds(),
        r.deadTuples() < 0 ? null : r.deadTuples(),
        new AdminStats.LastRun(r.endedAt(), r.rowsRemoved(), r.bytesRemoved()));
  }

  /** Three decimals: the meters' estimates are not more precise than that. */
  private static double rounded(double value) {
    return Math.round(value * 1000) / 1000.0;
  }

  /**
   * N·T/R: how long each of N agents waits for its next turn when R runners serve them in turn and
   * an activation takes T. T is the mean activation this node's agents reported since it started; 0
   * while there is no runner or nothing was measured yet.
   */
  static long idealIntervalSeconds(long agents, Duration meanActivation, long runners) {
    return Math.round(Capacity.idealInterval(agents, meanActivation, runners).toMillis() / 1000.0);
  }

  private Route setPaused(boolean paused) {
    return onSuccess(cluster.setPaused(paused), state -> ok(new PauseView(state.paused())));
  }

  private Route runners() {
    Instant now = Instant.now();
    CompletableFuture<Map<String, String>> leases = read(ReadModel::leasesByRunner);
    CompletableFuture<List<RunnerSeen>> seen = cluster.runnersSeen().toCompletableFuture();
    CompletableFuture<List<RunnerPool.Runners>> pools = cluster.pools().toCompletableFuture();
    var health = cluster.runnerHealth().toCompletableFuture();
    var all =
        CompletableFuture.allOf(leases, seen, pools, health)
            .thenApply(
                done ->
                    new RunnerList(
                        RunnerCensus.of(now, seen.join(), pools.join(), leases.join())
                            .runners(health.join(), now)));
    return onSuccess(all, this::ok);
  }

  /** Drains or restores a runner; 200 with its state afterwards. */
  private Route runnerChange(
      String runnerId,
      java.util.function.Function<String, CompletionStage<RunnerHealth.RunnerState>> change) {
    String id = RunnerHealthRequest.checkedRunnerId(runnerId);
    return onSuccess(change.apply(id), state -> ok(RunnerHealthState.of(state)));
  }

  /**
   * The newest dead letters: of one agent ({@code agentId}, in the request's tenant), of one tenant
   * ({@code tenant}, or a token scoped to tenants), or of every agent.
   */
  private Route deadLetters(Caller caller) {
    return parameterOptional(
        "agentId",
        agentIdParam ->
            parameterOptional(
                "limit",
                limitParam ->
                    parameterOptional(
                        "tenant",
                        tenantParam -> {
                          String agentId = QueryParams.agentIdFilter(agentIdParam);
                          boolean oneTenant =
                              agentId != null || tenantParam.isPresent() || !caller.everyTenant();
                          String tenant = oneTenant ? tenants.tenantOf(caller, tenantParam) : null;
                          String key = agentId == null ? null : AgentKeys.key(tenant, agentId);
                          int limit =
                              QueryParams.limit(
                                  limitParam, DEFAULT_DEAD_LETTER_LIMIT, MAX_DEAD_LETTER_LIMIT);
                          return onSuccess(
                              read(rm -> rm.deadLetters(key, tenant, limit)),
                              rows ->
                                  ok(
                                      new DeadLetterList(
                                          rows.stream()
                                              .map(AdminRoutes::deadLetterView)
                                              .toList())));
                        })));
  }

  private Route redrive(Caller caller, String deadLetterId) {
    String agentId =
        TenantResolver.visibleKey(caller, Ids.agentOf(deadLetterId))
            .orElseThrow(() -> ApiException.notFound("no dead letter " + deadLetterId));
    return onSuccess(
        agents.ask(agentId, replyTo -> new AgentEntity.Redrive(deadLetterId, replyTo)),
        reply -> {
          if (reply instanceof Rejected rejected) {
            if (rejected.code() == AgentEntity.ErrorCode.NOT_FOUND) {
              throw ApiException.notFound("no dead letter " + deadLetterId);
            }
            throw ApiErrors.rejected(rejected);
          }
          if (!(reply instanceof Done done)) {
            throw new IllegalStateException("unexpected reply from agent: " + reply);
          }
          return ok(
              new Redriven(
                  deadLetterId,
                  AgentKeys.agentIdOf(agentId),
                  AgentKeys.tenantOf(agentId),
                  done.at()));
        });
  }

  /** Removes the dead letter for good; 204, nothing to return. */
  private Route discard(Caller caller, String deadLetterId) {
    String agentId =
        TenantResolver.visibleKey(caller, Ids.agentOf(deadLetterId))
            .orElseThrow(() -> ApiException.notFound("no dead letter " + deadLetterId));
    return onSuccess(
        agents.ask(agentId, replyTo -> new AgentEntity.Discard(deadLetterId, replyTo)),
        reply -> {
          if (reply instanceof Rejected rejected) {
            if (rejected.code() == AgentEntity.ErrorCode.NOT_FOUND) {
              throw ApiException.notFound("no dead letter " + deadLetterId);
            }
            throw ApiErrors.rejected(rejected);
          }
          if (!(reply instanceof Done)) {
            throw new IllegalStateException("unexpected reply from agent: " + reply);
          }
          return complete(StatusCodes.NO_CONTENT);
        });
  }

  /** A read-model query on the blocking dispatcher; 503 when there is none or it fails. */
  private <T> CompletableFuture<T> read(Function<ReadModel, T> query) {
    return reads.read(query);
  }

  private Route ok(Object body) {
    return complete(JsonSupport.response(StatusCodes.OK, body));
  }

  private static DeadLetterView deadLetterView(DeadLetterRow row) {
    return new DeadLetterView(
        row.id(),
        AgentKeys.agentIdOf(row.agentId()),
        AgentKeys.tenantOf(row.agentId()),
        row.notificationId(),
        row.type(),
        payload(row.payload()),
        row.attempts(),
        row.reason(),
        row.deadAt());
  }

  /** The stored payload text as JSON; text that is not JSON (it should not happen) as a string. */
  private static JsonNode payload(String text) {
    if (text == null) {
      return null;
    }
    try {
      return JsonSupport.mapper().readTree(text);
    } catch (JsonProcessingException e) {
      return TextNode.valueOf(text);
    }
  }
}
