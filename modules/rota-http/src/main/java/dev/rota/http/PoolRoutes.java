package dev.rota.http;

import dev.rota.cluster.pool.PoolsReport;
import dev.rota.core.pool.Capacity;
import dev.rota.http.api.PoolList;
import java.time.Duration;
import java.time.Instant;
import java.util.Optional;
import org.apache.pekko.http.javadsl.model.StatusCodes;
import org.apache.pekko.http.javadsl.server.AllDirectives;
import org.apache.pekko.http.javadsl.server.Route;

/**
 * {@code GET /admin/pools} (role admin, under {@link AdminRoutes}): the pool scaler's desired
 * runners per pool with the backlog behind them and the capacity answers of ADR-011 (N·T/R, and the
 * runners a target staleness needs, {@code ?targetStalenessSeconds=} to ask for another target).
 * 503 {@code unavailable} while the scaler is off, failing over or has not counted yet.
 */
final class PoolRoutes extends AllDirectives {
  static final String TARGET_PARAM = "targetStalenessSeconds";
  static final long MAX_TARGET_SECONDS = 31_536_000;

  private final ClusterGateway cluster;

  PoolRoutes(ClusterGateway cluster) {
    this.cluster = cluster;
  }

  Route route() {
    return parameterOptional(
        TARGET_PARAM,
        param -> {
          Optional<Duration> target = targetStaleness(param);
          return onSuccess(
              cluster.poolsReport(),
              report ->
                  complete(
                      JsonSupport.response(
                          StatusCodes.OK,
                          poolList(
                              report.orElseThrow(
                                  () ->
                                      ApiException.unavailable(
                                          "the pool scaler has not answered (starting, failing"
                                              + " over, or off); try again shortly")),
                              target))));
        });
  }

  /** {@code ?targetStalenessSeconds=}: whole seconds, 1 to a year; 400 naming it otherwise. */
  static Optional<Duration> targetStaleness(Optional<String> param) {
    if (param.isEmpty()) {
      return Optional.empty();
    }
    try {
      long seconds = Long.parseLong(param.get());
      if (seconds >= 1 && seconds <= MAX_TARGET_SECONDS) {
        return Optional.of(Duration.ofSeconds(seconds));
      }
    } catch (NumberFormatException e) {
      // answered below, with the same message as an out-of-range number
    }
    throw ApiException.invalid(
        TARGET_PARAM + " must be a whole number of seconds between 1 and " + MAX_TARGET_SECONDS);
  }

  static PoolList poolList(PoolsReport report, Optional<Duration> requestedTarget) {
    Instant at = report.at();
    Duration t = report.meanActivation();
    return new PoolList(
        report.pools().stream()
            .map(
                p -> {
                  Duration target =
                      requestedTarget.orElse(
                          p.targetStaleness().isZero()
                              ? report.targetStaleness()
                              : p.targetStaleness());
                  return new PoolList.PoolView(
                      p.name(),
                      p.mode(),
                      p.capabilities(),
                      p.min(),
                      p.max(),
                      p.active(),
                      p.busy(),
                      p.desired(),
                      p.reason(),
                      p.inCluster(),
                      new PoolList.Backlog(
                          p.inboxAgents(),
                          p.waiting(),
                          ageSeconds(p.oldestUnreadAt(), at),
                          p.agents(),
                          ageSeconds(p.stalestAt(), at)),
                      new PoolList.Capacity(
                          seconds(t),
                          Capacity.idealInterval(p.agents(), t, p.active()).toSeconds(),
                          target.toSeconds(),
                          Capacity.runnersFor(p.agentsByMinInterval(), t, target)));
                })
            .toList(),
        seconds(t),
        at);
  }

  /** Three decimals, as the stats' meters. */
  static double seconds(Duration d) {
    return Math.round(d.toNanos() / 1e6) / 1000.0;
  }

  private static long ageSeconds(Instant since, Instant at) {
    return since == null || since.isAfter(at) ? 0 : Duration.between(since, at).toSeconds();
  }
}
