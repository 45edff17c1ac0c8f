package dev.rota.http;

import dev.rota.cluster.metrics.RotaMetrics;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import org.apache.pekko.http.javadsl.model.ContentType;
import org.apache.pekko.http.javadsl.model.ContentTypes;
import org.apache.pekko.http.javadsl.model.HttpCharsets;
import org.apache.pekko.http.javadsl.model.HttpResponse;
import org.apache.pekko.http.javadsl.model.MediaTypes;
import org.apache.pekko.http.javadsl.model.StatusCodes;
import org.apache.pekko.http.javadsl.server.AllDirectives;
import org.apache.pekko.http.javadsl.server.Route;

/**
 * {@code GET /metrics}: this node's meters in the Prometheus text format (version 0.0.4), for a
 * scraper that visits every node. It needs the metrics (or admin) role when tokens are configured
 * (Prometheus sends one with {@code authorization: {credentials: ...}}); like every route, it is
 * open when none are.
 */
public final class MetricsRoutes extends AllDirectives {
  /** {@code text/plain; version=0.0.4; charset=UTF-8}, what Prometheus expects. */
  public static final ContentType PROMETHEUS_TEXT =
      ContentTypes.create(
          MediaTypes.customWithOpenCharset("text", "plain", Map.of("version", "0.0.4"), false),
          HttpCharsets.UTF_8);

  private final RotaMetrics metrics;
  private final ApiAuth auth;

  public MetricsRoutes(RotaMetrics metrics, ApiAuth auth) {
    this.metrics = metrics;
    this.auth = auth;
  }

  public Route route() {
    return path(
        "metrics",
        () ->
            auth.require(
                Role.METRICS,
                () ->
                    get(
                        () ->
                            complete(
                                HttpResponse.create()
                                    .withStatus(StatusCodes.OK)
                                    .withEntity(
                                        PROMETHEUS_TEXT,
                                        metrics
                                            .registry()
                                            .scrape()
                                            .getBytes(StandardCharsets.UTF_8))))));
  }
}
