package dev.rota.server;

import org.apache.pekko.http.javadsl.model.ContentTypes;
import org.apache.pekko.http.javadsl.model.HttpResponse;
import org.apache.pekko.http.javadsl.model.StatusCodes;
import org.apache.pekko.http.javadsl.model.headers.RetryAfter;
import org.apache.pekko.http.javadsl.server.AllDirectives;
import org.apache.pekko.http.javadsl.server.Route;

/**
 * Answers the API's resources ({@code /v1/...}, {@code /admin/...}) with 503 and {@code
 * Retry-After} at once while the node cannot serve them yet ({@link
 * NodeReadiness#clusterServing()}): a node that was restarted and is still joining would otherwise
 * accept requests and let them hang until their ask timed out. Other paths (metrics, dashboard,
 * OpenAPI) are always served.
 */
final class ServingGate extends AllDirectives {
  private static final long RETRY_AFTER_SECONDS = 1L;
  private static final String BODY =
      "{\"error\":\"unavailable\",\"message\":\"this node is starting and cannot serve yet;"
          + " try again shortly or use another node\"}";

  private final NodeReadiness readiness;

  ServingGate(NodeReadiness readiness) {
    this.readiness = readiness;
  }

  Route wrap(Route inner) {
    return extractRequestContext(
        ctx -> {
          String path = ctx.getRequest().getUri().path();
          boolean api = path.startsWith("/v1/") || path.startsWith("/admin/");
          if (!api || readiness.clusterServing()) {
            return inner;
          }
          return complete(
              HttpResponse.create()
                  .withStatus(StatusCodes.SERVICE_UNAVAILABLE)
                  .addHeader(RetryAfter.create(RETRY_AFTER_SECONDS))
                  .withEntity(ContentTypes.APPLICATION_JSON, BODY));
        });
  }
}
