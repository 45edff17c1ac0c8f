package dev.rota.http;

import java.util.ArrayList;
import java.util.List;
import org.apache.pekko.http.javadsl.model.HttpHeader;
import org.apache.pekko.http.javadsl.model.headers.CacheControl;
import org.apache.pekko.http.javadsl.model.headers.CacheDirectives;
import org.apache.pekko.http.javadsl.model.headers.RawHeader;
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

  /**
   * The page's policy: scripts, styles, images and fonts from the node only (the page has no inline
   * script or style; Chart.js styles its canvas through the DOM, which style-src does not govern),
   * API calls and the event stream to the node only, and no page may frame the dashboard
   * (clickjacking an operator's session).
   */
  static final String CONTENT_SECURITY_POLICY =
      "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:;"
          + " font-src 'self'; connect-src 'self'; base-uri 'none'; form-action 'none';"
          + " frame-ancestors 'none'";

  static final List<HttpHeader> SECURITY_HEADERS =
      List.of(
          RawHeader.create("Content-Security-Policy", CONTENT_SECURITY_POLICY),
          RawHeader.create("X-Frame-Options", "DENY"),
          RawHeader.create("X-Content-Type-Options", "nosniff"),
          RawHeader.create("Referrer-Policy", "no-referrer"));

  private Route asset(java.util.function.Supplier<Route> file) {
    List<HttpHeader> headers = new ArrayList<>(SECURITY_HEADERS);
    headers.add(CacheControl.create(CacheDirectives.NO_CACHE));
    return get(() -> respondWithHeaders(headers, file));
  }
}
