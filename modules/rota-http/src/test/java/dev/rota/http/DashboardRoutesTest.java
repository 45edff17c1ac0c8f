package dev.rota.http;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.rota.http.testing.JUnit5RouteTest;
import org.apache.pekko.actor.testkit.typed.javadsl.ActorTestKit;
import org.apache.pekko.actor.typed.ActorSystem;
import org.apache.pekko.http.javadsl.model.HttpRequest;
import org.apache.pekko.http.javadsl.server.Route;
import org.apache.pekko.http.javadsl.testkit.TestRouteResult;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;

/** The dashboard's files come from the jar, Chart.js from its WebJar; nothing else is served. */
class DashboardRoutesTest extends JUnit5RouteTest {
  private static final ActorTestKit KIT = ActorTestKit.create("DashboardRoutesTest");

  @AfterAll
  static void stop() {
    KIT.shutdownTestKit();
  }

  @Override
  protected ActorSystem<?> typedSystem() {
    return KIT.system();
  }

  private Route routes() {
    return new ApiErrors(HttpSettings.from(com.typesafe.config.ConfigFactory.load()))
        .handle(() -> new DashboardRoutes().route());
  }

  @Test
  void servesThePageItsScriptStylesAndChartJs() {
    TestRouteResult page = testRoute(routes()).run(HttpRequest.GET("/"));
    page.assertStatusCode(200);
    assertEquals("text/html; charset=UTF-8", page.contentType().toString());
    assertTrue(page.entityString().contains("/dashboard/app.js"));
    page.assertHeaderExists("Cache-Control", "no-cache");

    TestRouteResult script = testRoute(routes()).run(HttpRequest.GET("/dashboard/app.js"));
    script.assertStatusCode(200);
    assertTrue(script.entityString().contains("sessionStorage"));
    testRoute(routes()).run(HttpRequest.GET("/dashboard/app.css")).assertStatusCode(200);

    TestRouteResult chart =
        testRoute(routes()).run(HttpRequest.GET("/dashboard/vendor/chart.umd.js"));
    chart.assertStatusCode(200);
    assertTrue(chart.entityString().contains("Chart.js v4.4.1"), "not Chart.js 4.4.1");
  }

  @Test
  void everyDashboardResponseCarriesTheBrowserSecurityHeaders() {
    for (String path :
        java.util.List.of(
            "/", "/dashboard/app.js", "/dashboard/app.css", "/dashboard/vendor/chart.umd.js")) {
      TestRouteResult result = testRoute(routes()).run(HttpRequest.GET(path));
      result.assertStatusCode(200);
      String csp = result.response().getHeader("Content-Security-Policy").orElseThrow().value();
      assertTrue(csp.contains("frame-ancestors 'none'"), path + ": " + csp);
      assertTrue(csp.contains("script-src 'self'"), path + ": " + csp);
      assertTrue(csp.contains("default-src 'none'"), path + ": " + csp);
      result.assertHeaderExists("X-Frame-Options", "DENY");
      result.assertHeaderExists("X-Content-Type-Options", "nosniff");
    }
  }

  @Test
  void thePageHasNoInlineScriptOrStyleThatThePolicyWouldBlock() {
    String page = testRoute(routes()).run(HttpRequest.GET("/")).entityString();
    assertTrue(
        !java.util.regex.Pattern.compile("<script(?![^>]*\\ssrc=)[^>]*>").matcher(page).find(),
        "an inline <script> in the page");
    assertTrue(!page.contains("<style"), "an inline <style> in the page");
    assertTrue(!page.contains(" style="), "an inline style attribute in the page");
    assertTrue(
        !java.util.regex.Pattern.compile("\\son[a-z]+=").matcher(page).find(),
        "an inline event handler in the page");
  }

  @Test
  void leavesOtherRoutesMethodRejectionsAlone() {
    Route withApi =
        new ApiErrors(HttpSettings.from(com.typesafe.config.ConfigFactory.load()))
            .handle(
                () ->
                    concat(
                        new DashboardRoutes().route(),
                        path(
                            org.apache.pekko.http.javadsl.server.PathMatchers.segment("admin")
                                .slash("pause"),
                            () -> post(() -> complete("x")))));
    TestRouteResult wrongMethod = testRoute(withApi).run(HttpRequest.GET("/admin/pause"));
    dev.rota.http.testing.RouteAssertions.assertError(
        wrongMethod, 405, "method_not_allowed", "POST");
  }

  @Test
  void answersAMissingFileWith404InTheApiShape() {
    TestRouteResult missing = testRoute(routes()).run(HttpRequest.GET("/dashboard/nothing.js"));
    dev.rota.http.testing.RouteAssertions.assertError(
        missing, 404, "not_found", "/dashboard/nothing.js");
  }
}
