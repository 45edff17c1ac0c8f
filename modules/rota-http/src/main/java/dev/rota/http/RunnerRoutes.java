package dev.rota.http;

import dev.rota.http.api.RunnerHealthRequest;
import dev.rota.http.api.RunnerHealthState;
import org.apache.pekko.http.javadsl.model.StatusCodes;
import org.apache.pekko.http.javadsl.server.AllDirectives;
import org.apache.pekko.http.javadsl.server.PathMatchers;
import org.apache.pekko.http.javadsl.server.Route;

/**
 * {@code POST /v1/runners/{runnerId}/health} (role runner): a runner says it is degraded, with a
 * reason and for how long, or healthy again. While degraded its claims are answered {@code none}
 * with reason {@code degraded} (docs/operations.md, "A sick runner").
 */
public final class RunnerRoutes extends AllDirectives {
  private final ClusterGateway cluster;
  private final ApiAuth auth;
  private final long maxBodyBytes;
  private final long maxReportSeconds;

  public RunnerRoutes(
      ClusterGateway cluster, ApiAuth auth, HttpSettings settings, long maxReportSeconds) {
    this.cluster = cluster;
    this.auth = auth;
    this.maxBodyBytes = settings.maxBodyBytes();
    this.maxReportSeconds = maxReportSeconds;
  }

  public Route route() {
    return path(
        PathMatchers.segment("v1").slash("runners").slash(PathMatchers.segment()).slash("health"),
        runnerId ->
            auth.requireCaller(Role.RUNNER, caller -> post(() -> report(caller, runnerId))));
  }

  /**
   * A runner's report on its own health: a token may report only as its own runner ids, and the
   * degradations a token scoped to tenants reports count against its tenants' cap.
   */
  private Route report(Caller caller, String runnerId) {
    String id = caller.requireRunner(RunnerHealthRequest.checkedRunnerId(runnerId));
    return JsonSupport.body(
        RunnerHealthRequest.class,
        maxBodyBytes,
        body -> {
          RunnerHealthRequest.Health health = body.validated(maxReportSeconds);
          return onSuccess(
              cluster.reportHealth(
                  id, health.degraded(), health.reason(), health.seconds(), caller.scope()),
              state -> complete(JsonSupport.response(StatusCodes.OK, RunnerHealthState.of(state))));
        });
  }
}
