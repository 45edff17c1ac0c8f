package dev.rota.http;

import org.apache.pekko.http.javadsl.model.headers.CacheControl;
import org.apache.pekko.http.javadsl.model.headers.CacheDirectives;
import org.apache.pekko.http.javadsl.server.AllDirectives;
import org.apache.pekko.http.javadsl.server.PathMatchers;
import org.apache.pekko.http.javadsl.server.Route;

/**
 * The admin dashboard: {@code GET /} is its page, {@code GET /dashboard/...} its script, styles and
 * Chart.js (from the {@code org.webjars.npm:chart.js} jar), all served from the classpath — no
 * build step and nothing fetched from elsewhere. The files hold no data and are open to everyone;
 * the page asks for an admin token once, keeps it in the browser session (sessionStorage), and
 * calls the admin API with it like any client.
 */
public final class DashboardRoutes extends AllDirectives {
  static final String ASSETS = "dev/rota/http/dashboard";
  static final String CHART_JS = "META-INF/resources/webjars/chart.js/4.4.1/dist";

  /**
   * Paths first, then the method: a passing {@code get()} cancels other routes' method rejections,
   * which would turn every 405 of the API into a 404.
   */
  public Route route() {
    return concat(
        pathSingleSlash(() -> asset(() -> getFromResource(ASSETS + "/index.html"))),
        pathPrefix(
            PathMatchers.segment("dashboard").slash("vendor"),
            () -> asset(() -> getFromResourceDirectory(CHART_JS))),
        pathPrefix("dashboard", () -> asset(() -> getFromResourceDirectory(ASSETS))));
  }

  private Route asset(java.util.function.Supplier<Route> file) {
    return get(() -> respondWithHeader(CacheControl.create(CacheDirectives.NO_CACHE), file));
  }
}
