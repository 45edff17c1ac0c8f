package dev.rota.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.typesafe.config.Config;
import com.typesafe.config.ConfigFactory;
import dev.rota.server.testing.Databases;
import dev.rota.server.testing.NodeHttp;
import dev.rota.server.testing.TestDatabase;
import java.io.File;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.logging.Level;
import org.apache.pekko.actor.testkit.typed.javadsl.LogCapturingExtension;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;
import org.openqa.selenium.By;
import org.openqa.selenium.Dimension;
import org.openqa.selenium.OutputType;
import org.openqa.selenium.WebDriver;
import org.openqa.selenium.WebElement;
import org.openqa.selenium.chrome.ChromeDriver;
import org.openqa.selenium.chrome.ChromeDriverService;
import org.openqa.selenium.chrome.ChromeOptions;
import org.openqa.selenium.logging.LogEntry;
import org.openqa.selenium.logging.LogType;
import org.openqa.selenium.logging.LoggingPreferences;
import org.openqa.selenium.support.ui.ExpectedConditions;
import org.openqa.selenium.support.ui.WebDriverWait;

/**
 * The admin dashboard end to end: a real node on H2 with agents, dead letters and a runner, and
 * headless Chromium (Debian's {@code chromium} and {@code chromium-driver}, driven by Selenium)
 * clicking through every page. The page loads without console errors, its numbers are those of
 * {@code /admin/stats} (the system page's storage too), and pausing an agent, discarding and
 * redriving a dead letter and pausing the system work by clicking. Screenshots of every page go to
 * {@code target/dashboard-screenshots} (docs/dashboard holds a copy).
 */
@ExtendWith(LogCapturingExtension.class)
class DashboardBrowserTest {
  private static final Duration WAIT = Duration.ofSeconds(30);
  private static final Path SCREENSHOTS = Path.of("target", "dashboard-screenshots");

  @Test
  void anOperatorSeesTheClusterAndActsOnItByClicking(@TempDir Path profile) throws Exception {
    String chromium = executable("chromium", "chromium");
    String chromedriver = executable("chromedriver", "chromium-driver");
    try (TestDatabase database = Databases.h2();
        RotaNode node =
            RotaNode.startWith(
                RotaConfig.load(
                    RotaNodeContract.TEST_NODE.withFallback(database.config()), Map.of()))) {
      NodeHttp api = new NodeHttp(node.httpPort());
      api.agentWithInbox("dash-a", "dash", 2);
      api.agentWithInbox("dash-b", "dash", 1);
      api.agentWithInbox("dash-dead", "dash-dead", 1);
      api.agentWithInbox("dash-done", "dash-done", 1);
      api.agentWithInbox("dash-gone", "dash-gone", 1);
      JsonNode done =
          api.json(
              "POST",
              "/v1/claims",
              "{\"runnerId\":\"runner-2\",\"capabilities\":[\"dash-done\"],\"waitSeconds\":5}",
              200);
      api.json(
          "POST",
          "/v1/leases/" + done.get("assignment").get("leaseId").asText() + "/complete",
          "{\"runnerId\":\"runner-2\"}",
          200);
      JsonNode claim =
          api.json(
              "POST",
              "/v1/claims",
              "{\"runnerId\":\"runner-1\",\"capabilities\":[\"dash-dead\"],\"waitSeconds\":5}",
              200);
      String leaseId = claim.get("assignment").get("leaseId").asText();
      api.json(
          "POST",
          "/v1/leases/" + leaseId + "/fail",
          "{\"runnerId\":\"runner-1\",\"error\":\"tool crashed\",\"action\":\"cancel\"}",
          200);
      JsonNode unwanted =
          api.json(
              "POST",
              "/v1/claims",
              "{\"runnerId\":\"runner-3\",\"capabilities\":[\"dash-gone\"],\"waitSeconds\":5}",
              200);
      api.json(
          "POST",
          "/v1/leases/" + unwanted.get("assignment").get("leaseId").asText() + "/fail",
          "{\"runnerId\":\"runner-3\",\"error\":\"not wanted\",\"action\":\"cancel\"}",
          200);

      // A runner that says it is sick: the runners page shows it degraded, with its reason.
      api.json(
          "POST",
          "/v1/runners/runner-sick/health",
          "{\"degraded\":true,\"reason\":\"model key revoked\",\"seconds\":600}",
          200);

      WebDriver browser = browser(chromium, chromedriver, profile);
      try {
        WebDriverWait wait = new WebDriverWait(browser, WAIT);
        // The anonymous loopback mode (no tokens): the dashboard opens without asking for one.
        browser.get(api.base() + "/");
        wait.until(ExpectedConditions.visibilityOfElementLocated(By.id("main")));
        assertFalse(browser.findElement(By.id("login")).isDisplayed(), "asked for a token");

        // Overview: the read model catches up, then the page shows what /admin/stats says.
        wait.until(ExpectedConditions.textToBe(By.id("stat-registered"), "5"));
        wait.until(ExpectedConditions.textToBe(By.id("stat-deadLetters"), "2"));
        wait.until(ExpectedConditions.textToBe(By.id("stat-unread"), "3"));
        JsonNode stats = api.json("GET", "/admin/stats", null, 200);
        assertEquals(
            text(stats.at("/agents/registered")),
            browser.findElement(By.id("stat-registered")).getText());
        assertEquals(
            text(stats.at("/agents/withInbox")),
            browser.findElement(By.id("stat-withInbox")).getText());
        assertEquals(
            text(stats.at("/agents/leased")), browser.findElement(By.id("stat-leased")).getText());
        assertEquals(
            text(stats.at("/inbox/unread")), browser.findElement(By.id("stat-unread")).getText());
        assertEquals(
            text(stats.get("deadLetters")),
            browser.findElement(By.id("stat-deadLetters")).getText());
        assertEquals(
            stats.at("/cluster/nodes").asInt() + " / " + stats.at("/cluster/partitions").asInt(),
            browser.findElement(By.id("stat-cluster")).getText());
        waitForPolls(browser, wait, 2);
        // From the second poll on, activations per second by kind (counter deltas) are numbers.
        wait.until(
            ExpectedConditions.textMatches(
                By.id("stat-perSecondByKind"),
                java.util.regex.Pattern.compile("[0-9.,]+ / [0-9.,]+ / [0-9.,]+")));
        assertTrue(
            browser
                .findElement(By.id("stat-activations"))
                .getText()
                .matches("[0-9,]+ / [0-9,]+ / [0-9,]+"));
        screenshot(browser, "overview");

        page(browser, wait, "fairness");
        wait.until(
            ExpectedConditions.textToBePresentInElementLocated(By.id("fairness-table"), "dash-"));
        screenshot(browser, "fairness");

        page(browser, wait, "agents");
        wait.until(
            ExpectedConditions.textToBePresentInElementLocated(By.id("agents-table"), "dash-a"));
        screenshot(browser, "agents");

        // An agent's page; pause and resume it by clicking.
        browser.findElement(By.linkText("dash-a")).click();
        wait.until(ExpectedConditions.textToBe(By.id("agent-title"), "Agent dash-a"));
        wait.until(
            ExpectedConditions.textToBePresentInElementLocated(
                By.id("agent-history"), "notification"));
        // Its explanation: the same reasons and ranks the explain endpoint gives.
        wait.until(
            ExpectedConditions.textToBePresentInElementLocated(
                By.id("agent-explain"), "inbox order"));
        JsonNode explained = api.json("GET", "/v1/agents/dash-a/explain", null, 200);
        String shown = browser.findElement(By.id("agent-explain")).getText();
        assertTrue(shown.contains(explained.get("eligible").asBoolean() ? "yes" : "no"), shown);
        for (JsonNode blocked : explained.get("blockedBy")) {
          assertTrue(shown.contains("blocked by " + blocked.get("reason").asText()), shown);
        }
        screenshot(browser, "agent");
        browser.findElement(By.id("agent-pause")).click();
        wait.until(ExpectedConditions.visibilityOfElementLocated(By.id("agent-resume")));
        assertEquals(
            "paused", api.json("GET", "/v1/agents/dash-a", null, 200).get("status").asText());
        browser.findElement(By.id("agent-resume")).click();
        wait.until(ExpectedConditions.visibilityOfElementLocated(By.id("agent-pause")));
        assertEquals(
            "idle", api.json("GET", "/v1/agents/dash-a", null, 200).get("status").asText());

        // Calls: dash-caller called two agents in one group and one has answered.
        api.agentWithInbox("dash-caller", "dash-caller", 1);
        api.agentWithInbox("dash-callee-1", "dash-callee-1", 0);
        api.agentWithInbox("dash-callee-2", "dash-callee-2", 0);
        String call = "{\"agentId\":\"%s\",\"type\":\"ask\",\"call\":{\"group\":\"votes\"}}";
        serveTurn(
            api,
            "dash-caller",
            ",\"send\":["
                + call.formatted("dash-callee-1")
                + ","
                + call.formatted("dash-callee-2")
                + "]");
        serveTurn(api, "dash-callee-1", ",\"result\":{\"vote\":\"yes\"}");
        wait.until(
            d ->
                api.json("GET", "/v1/agents/dash-caller", null, 200)
                    .at("/calls/made/0/answered")
                    .asBoolean(false));
        browser.get(api.base() + "/#agent/dash-caller");
        wait.until(
            ExpectedConditions.textToBePresentInElementLocated(
                By.id("agent-calls-made"), "1 of 2"));
        String made = browser.findElement(By.id("agent-calls-made")).getText();
        assertTrue(made.contains("votes"), made);
        assertTrue(made.contains("dash-callee-1, dash-callee-2"), made);
        screenshot(browser, "agent-calls");
        // The callee still owing its answer serves dash-caller's call.
        browser.get(api.base() + "/#agent/dash-callee-2");
        wait.until(
            ExpectedConditions.textToBePresentInElementLocated(
                By.id("agent-calls-served"), "dash-caller"));
        String served = browser.findElement(By.id("agent-calls-served")).getText();
        assertTrue(served.contains("unread"), served);
        assertTrue(
            browser.findElement(By.id("agent-calls-made")).getText().contains("no call waiting"));

        page(browser, wait, "runners");
        wait.until(
            ExpectedConditions.textToBePresentInElementLocated(By.id("runners-table"), "runner-1"));
        wait.until(
            ExpectedConditions.textToBePresentInElementLocated(
                By.id("runners-table"), "runner-sick"));
        By sickRow = By.xpath("//table[@id='runners-table']//tr[td[1][text()='runner-sick']]");
        String sick = browser.findElement(sickRow).getText();
        assertTrue(sick.contains("degraded"), sick);
        assertTrue(sick.contains("model key revoked"), sick);
        // runner-2 completed one activation, runner-1 failed one: the figures of /admin/runners.
        String completedRow =
            browser
                .findElement(By.xpath("//table[@id='runners-table']//tr[td[1][text()='runner-2']]"))
                .getText();
        assertTrue(completedRow.matches("(?s).*idle.*\\b1\\b.*"), completedRow);
        String failedRow =
            browser
                .findElement(By.xpath("//table[@id='runners-table']//tr[td[1][text()='runner-1']]"))
                .getText();
        assertTrue(failedRow.contains("tool crashed"), failedRow);
        // The pool scaler's default pool (its first round may come after the page's first poll).
        wait.until(
            ExpectedConditions.textToBePresentInElementLocated(By.id("pools-table"), "default"));
        screenshot(browser, "runners");
        // Restore the sick runner by clicking: it is no longer degraded.
        browser.findElement(sickRow).findElement(By.className("runner-action")).click();
        wait.until(
            d -> {
              JsonNode r = api.json("GET", "/admin/runners", null, 200);
              for (JsonNode x : r.get("runners")) {
                if (x.get("runnerId").asText().equals("runner-sick")) {
                  return x.get("status").asText().equals("degraded") ? null : true;
                }
              }
              return true;
            });

        // Tenants: default and one an admin set, with the figures of /admin/tenants.
        api.json("PUT", "/admin/tenants/acme", "{\"weight\":3,\"maxConcurrent\":2}", 201);
        page(browser, wait, "tenants");
        By acmeRow = By.xpath("//table[@id='tenants-table']//tr[td[1][text()='acme']]");
        By defaultRow = By.xpath("//table[@id='tenants-table']//tr[td[1][text()='default']]");
        wait.until(ExpectedConditions.visibilityOfElementLocated(acmeRow));
        JsonNode plain = api.json("GET", "/admin/tenants/default", null, 200);
        List<String> defaultCells =
            browser.findElement(defaultRow).findElements(By.tagName("td")).stream()
                .map(WebElement::getText)
                .toList();
        assertEquals(text(plain.get("agents")), defaultCells.get(4), defaultCells.toString());
        assertEquals(text(plain.get("unread")), defaultCells.get(5), defaultCells.toString());
        List<String> acmeCells =
            browser.findElement(acmeRow).findElements(By.tagName("td")).stream()
                .map(WebElement::getText)
                .toList();
        assertEquals(List.of("acme", "3", "2", "–", "0", "0", "0"), acmeCells.subList(0, 7));
        screenshot(browser, "tenants");

        // Dead letters: discard one after a confirmation; it is gone, and its agent's inbox too.
        page(browser, wait, "dead-letters");
        wait.until(
            ExpectedConditions.textToBePresentInElementLocated(
                By.id("dead-letters-table"), "tool crashed"));
        wait.until(
            ExpectedConditions.textToBePresentInElementLocated(
                By.id("dead-letters-table"), "not wanted"));
        screenshot(browser, "dead-letters");
        browser
            .findElement(
                By.xpath(
                    "//table[@id='dead-letters-table']//tr[td[contains(., 'not wanted')]]"
                        + "//button[contains(@class, 'discard')]"))
            .click();
        wait.until(ExpectedConditions.visibilityOfElementLocated(By.id("discard-confirm")));
        assertEquals(
            1,
            api.json("GET", "/v1/agents/dash-gone", null, 200).get("deadLetters").asInt(),
            "discarded before confirming");
        screenshot(browser, "dead-letters-confirm");
        browser.findElement(By.id("discard-confirm-yes")).click();
        wait.until(
            ExpectedConditions.not(
                ExpectedConditions.textToBePresentInElementLocated(
                    By.id("dead-letters-table"), "not wanted")));
        JsonNode discarded = api.json("GET", "/v1/agents/dash-gone", null, 200);
        assertEquals(0, discarded.get("deadLetters").asInt(), discarded.toString());
        assertEquals(0, discarded.at("/inbox/unread").asInt(), discarded.toString());

        // Then redrive the other by clicking; the notification is back in its agent's inbox.
        browser.findElement(By.cssSelector("button.redrive")).click();
        wait.until(
            ExpectedConditions.textToBePresentInElementLocated(
                By.id("dead-letters-table"), "no dead letters"));
        // The agent is the authority (the listing reads the read model, a moment behind).
        JsonNode redriven = api.json("GET", "/v1/agents/dash-dead", null, 200);
        assertEquals(0, redriven.get("deadLetters").asInt(), redriven.toString());
        assertEquals(1, redriven.at("/inbox/unread").asInt(), redriven.toString());

        // System: the journal's storage as its maintenance last saw it, as /admin/stats says
        // (compared within one poll: a run between two reads changes the figures).
        page(browser, wait, "system");
        wait.until(ExpectedConditions.textToBe(By.id("system-state"), "running"));
        wait.until(
            d -> {
              JsonNode storage = api.json("GET", "/admin/stats", null, 200).get("storage");
              return storage != null
                  && text(storage.get("journalRows"))
                      .equals(d.findElement(By.id("stat-journalRows")).getText())
                  && text(storage.at("/lastRun/removedRows"))
                      .equals(d.findElement(By.id("stat-removedRows")).getText());
            });
        JsonNode storage = api.json("GET", "/admin/stats", null, 200).get("storage");
        assertEquals(Duration.ofDays(7).toSeconds(), storage.get("retentionSeconds").asLong());
        assertEquals("7 d 0 h", browser.findElement(By.id("stat-retention")).getText());
        assertTrue(
            browser.findElement(By.id("stat-oldestEvent")).getText().matches("\\d+ (s|min \\d+ s)"),
            browser.findElement(By.id("stat-oldestEvent")).getText());
        assertTrue(
            browser.findElement(By.id("stat-lastRun")).getText().endsWith(" ago"),
            browser.findElement(By.id("stat-lastRun")).getText());
        // H2 tells no size on disk and has no dead tuples to count.
        assertTrue(storage.get("journalBytes").isNull(), storage.toString());
        assertEquals("–", browser.findElement(By.id("stat-journalBytes")).getText());
        assertEquals("–", browser.findElement(By.id("stat-deadTuples")).getText());
        screenshot(browser, "system");

        // System pause and resume, each after a confirmation.
        browser.findElement(By.id("system-toggle")).click();
        wait.until(ExpectedConditions.visibilityOfElementLocated(By.id("confirm")));
        assertEquals(
            false,
            api.json("GET", "/admin/stats", null, 200).get("paused").asBoolean(),
            "paused before confirming");
        screenshot(browser, "system-confirm");
        browser.findElement(By.id("confirm-yes")).click();
        wait.until(ExpectedConditions.textToBe(By.id("system-state"), "paused"));
        assertEquals(true, api.json("GET", "/admin/stats", null, 200).get("paused").asBoolean());
        screenshot(browser, "system-paused");
        browser.findElement(By.id("system-toggle")).click();
        browser.findElement(By.id("confirm-yes")).click();
        wait.until(ExpectedConditions.textToBe(By.id("system-state"), "running"));
        assertEquals(false, api.json("GET", "/admin/stats", null, 200).get("paused").asBoolean());

        List<LogEntry> errors =
            browser.manage().logs().get(LogType.BROWSER).getAll().stream()
                .filter(e -> e.getLevel().intValue() >= Level.WARNING.intValue())
                .toList();
        assertEquals(List.of(), errors, "console warnings or errors");
      } finally {
        browser.quit();
      }
    }
  }

  @Test
  void aNodeWithTokensAsksForOneAndOpensWithAnAdminToken(@TempDir Path profile) throws Exception {
    String chromium = executable("chromium", "chromium");
    String chromedriver = executable("chromedriver", "chromium-driver");
    Config tokens =
        ConfigFactory.parseString(
            "rota.http.tokens = [ { token = \"dash-admin\", roles = [admin] },"
                + " { token = \"dash-producer\", roles = [producer] } ]");
    try (TestDatabase database = Databases.h2();
        RotaNode node =
            RotaNode.startWith(
                RotaConfig.load(
                    tokens.withFallback(RotaNodeContract.TEST_NODE).withFallback(database.config()),
                    Map.of()))) {
      NodeHttp api = new NodeHttp(node.httpPort());
      WebDriver browser = browser(chromium, chromedriver, profile);
      try {
        WebDriverWait wait = new WebDriverWait(browser, WAIT);
        browser.get(api.base() + "/");
        wait.until(ExpectedConditions.visibilityOfElementLocated(By.id("login")));
        assertFalse(browser.findElement(By.id("main")).isDisplayed(), "opened without a token");
        screenshot(browser, "login");
        browser.findElement(By.id("token")).sendKeys("dash-producer");
        browser.findElement(By.id("login-button")).click();
        wait.until(
            ExpectedConditions.textToBePresentInElementLocated(
                By.id("login-error"), "not accepted"));
        browser.findElement(By.id("token")).clear();
        browser.findElement(By.id("token")).sendKeys("dash-admin");
        browser.findElement(By.id("login-button")).click();
        wait.until(ExpectedConditions.visibilityOfElementLocated(By.id("main")));
        wait.until(ExpectedConditions.textToBe(By.id("stat-registered"), "0"));
      } finally {
        browser.quit();
      }
    }
  }

  /**
   * Claims a turn of {@code agentId} (its capability is its id) that carries a notification and
   * completes it with {@code fields}; a turn carrying none (the agent had no inbox yet) is
   * completed empty and claimed again.
   */
  private static void serveTurn(NodeHttp api, String agentId, String fields) {
    for (int i = 0; i < 10; i++) {
      JsonNode claim =
          api.json(
              "POST",
              "/v1/claims",
              "{\"runnerId\":\"runner-calls\",\"capabilities\":[\""
                  + agentId
                  + "\"],\"waitSeconds\":5}",
              200);
      JsonNode assignment = claim.get("assignment");
      assertTrue(assignment != null && !assignment.isNull(), claim.toString());
      boolean carries = assignment.get("notifications").size() > 0;
      api.json(
          "POST",
          "/v1/leases/" + assignment.get("leaseId").asText() + "/complete",
          "{\"runnerId\":\"runner-calls\"" + (carries ? fields : "") + "}",
          200);
      if (carries) {
        return;
      }
    }
    throw new AssertionError(agentId + " was never given its notification");
  }

  private static String text(JsonNode number) {
    return String.format("%,d", number.asLong());
  }

  private static void page(WebDriver browser, WebDriverWait wait, String name) {
    browser.findElement(By.cssSelector("#nav a[data-page='" + name + "']")).click();
    wait.until(ExpectedConditions.attributeContains(By.id("page-" + name), "class", "active"));
  }

  /** Waits until the overview has polled {@code count} more times, so the charts have points. */
  private static void waitForPolls(WebDriver browser, WebDriverWait wait, int count) {
    for (int i = 0; i < count; i++) {
      String before = browser.findElement(By.tagName("body")).getAttribute("data-loaded");
      wait.until(
          d -> !before.equals(d.findElement(By.tagName("body")).getAttribute("data-loaded")));
    }
  }

  private static void screenshot(WebDriver browser, String name) throws Exception {
    Files.createDirectories(SCREENSHOTS);
    File shot = ((org.openqa.selenium.TakesScreenshot) browser).getScreenshotAs(OutputType.FILE);
    Files.copy(
        shot.toPath(), SCREENSHOTS.resolve(name + ".png"), StandardCopyOption.REPLACE_EXISTING);
  }

  private static WebDriver browser(String chromium, String chromedriver, Path profile) {
    ChromeOptions options = new ChromeOptions();
    options.setBinary(chromium);
    // Without these flags Chromium hangs at start-up on a closed network.
    options.addArguments(
        "--headless",
        "--no-sandbox",
        "--disable-gpu",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
        "--no-first-run",
        "--disable-dev-shm-usage",
        "--user-data-dir=" + profile.resolve("chromium"),
        "--window-size=1400,1000");
    LoggingPreferences logs = new LoggingPreferences();
    logs.enable(LogType.BROWSER, Level.ALL);
    options.setCapability("goog:loggingPrefs", logs);
    ChromeDriverService service =
        new ChromeDriverService.Builder()
            .usingDriverExecutable(new File(chromedriver))
            .usingAnyFreePort()
            .build();
    WebDriver driver = new ChromeDriver(service, options);
    driver.manage().window().setSize(new Dimension(1400, 1000));
    return driver;
  }

  /**
   * A browser part from Debian ({@code apt-get install -y chromium chromium-driver}; .ci/run does
   * it as root). Missing, the test fails saying so: a skipped browser test would pass silently.
   */
  private static String executable(String name, String debianPackage) {
    for (String dir : System.getenv().getOrDefault("PATH", "/usr/bin").split(File.pathSeparator)) {
      File candidate = new File(dir, name);
      if (candidate.canExecute()) {
        return candidate.getAbsolutePath();
      }
    }
    throw new AssertionError(
        name
            + " is not installed: the dashboard test drives headless Chromium. Install Debian's "
            + debianPackage
            + " package (as root: apt-get update && apt-get install -y chromium chromium-driver),"
            + " as .ci/run does");
  }
}
