package dev.rota.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import dev.rota.client.AgentSpec;
import dev.rota.client.ClaimResult;
import dev.rota.client.Notification;
import dev.rota.client.Outcome;
import dev.rota.client.RotaClient;
import dev.rota.client.RunnerMode;
import dev.rota.client.testing.Eventually;
import dev.rota.client.testing.RealNode;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.time.Duration;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/** The {@code rota} commands against a real node, run in-process as {@code main} would. */
@ExtendWith(RealNode.class)
class RotaCliTest {
  private RotaClient client;
  private String capability;

  /** One run of the command line. */
  record Run(int exit, String out, String err) {}

  @BeforeEach
  void connect() {
    client = RotaClient.builder(RealNode.uri()).build();
    capability = "cap-" + UUID.randomUUID();
  }

  @AfterEach
  void disconnect() {
    client.close();
  }

  /** Runs {@code rota args} with ROTA_URL pointing at the node. */
  private Run rota(String... args) {
    return rotaWith(Map.of("ROTA_URL", RealNode.uri().toString()), args);
  }

  private Run rotaWith(Map<String, String> environment, String... args) {
    StringWriter out = new StringWriter();
    StringWriter err = new StringWriter();
    var cli = RotaCli.commandLine(environment);
    cli.setOut(new PrintWriter(out, true));
    cli.setErr(new PrintWriter(err, true));
    int exit = cli.execute(args);
    return new Run(exit, out.toString(), err.toString());
  }

  private String newAgent() {
    String id = "agent-" + UUID.randomUUID();
    client.registerAgent(id, AgentSpec.create().capabilities(capability));
    return id;
  }

  private static JsonNode json(Run run) throws Exception {
    assertEquals(0, run.exit(), run.err());
    return ConnectionOptions.JSON.readTree(run.out());
  }

  @Test
  void statsAsATableAndAsJson() throws Exception {
    Run table = rota("stats");
    assertEquals(0, table.exit(), table.err());
    assertTrue(table.out().contains("registered"), table.out());
    assertTrue(table.out().contains("partitions"), table.out());

    JsonNode stats = json(rota("stats", "--json"));
    assertEquals(1, stats.path("cluster").path("nodes").asInt(), stats.toString());
    assertTrue(stats.path("paused").isBoolean());
  }

  @Test
  void runnersShowStatusAndFiguresAndAreDrainedAndRestored() throws Exception {
    String runnerId = "cli-runner-" + UUID.randomUUID();
    client.reportHealth(runnerId, true, "out of memory", Duration.ofMinutes(5));
    Run table = rota("runners");
    assertEquals(0, table.exit(), table.err());
    assertTrue(table.out().startsWith("RUNNER"), table.out());
    String line = table.out().lines().filter(l -> l.startsWith(runnerId)).findFirst().orElseThrow();
    assertTrue(line.contains("degraded"), line);
    assertTrue(line.contains("out of memory"), line);

    JsonNode drained = json(rota("runners", "drain", runnerId, "--json"));
    assertEquals("draining", drained.get(0).path("status").asText(), drained.toString());
    JsonNode listed = json(rota("runners", "--json"));
    boolean found = false;
    for (JsonNode r : listed.path("runners")) {
      if (r.path("runnerId").asText().equals(runnerId)) {
        assertEquals("draining", r.path("status").asText(), r.toString());
        assertEquals(0, r.path("stats").path("completed").asLong());
        found = true;
      }
    }
    assertTrue(found, listed.toString());
    Run restored = rota("runners", "restore", runnerId);
    assertEquals(0, restored.exit(), restored.err());
    assertEquals(runnerId + ": healthy", restored.out().strip());
  }

  @Test
  void poolsAsATableAndAsJson() throws Exception {
    // The node's scaler counts every few seconds; its first round may still be under way.
    Run run =
        Eventually.await(
            "the pool scaler's first round",
            Duration.ofSeconds(30),
            () -> {
              Run r = rota("pools", "--json");
              return r.exit() == 0 ? r : null;
            });
    JsonNode pools = json(run);
    assertEquals("default", pools.path("pools").get(0).path("name").asText(), pools.toString());
    Run table = rota("pools");
    assertEquals(0, table.exit(), table.err());
    assertTrue(table.out().startsWith("POOL"), table.out());
    assertTrue(table.out().contains("default  hybrid"), table.out());
  }

  @Test
  void agentsGetListPauseAndResume() throws Exception {
    String id = newAgent();
    Run get = rota("agents", "get", id);
    assertEquals(0, get.exit(), get.err());
    assertTrue(get.out().contains(id) && get.out().contains("idle"), get.out());

    assertEquals("paused", json(rota("agents", "pause", id, "--json")).path("status").asText());
    assertEquals("idle", json(rota("agents", "resume", id, "--json")).path("status").asText());

    JsonNode page = json(rota("agents", "list", "--limit", "5", "--json"));
    assertTrue(page.path("agents").size() > 0, page.toString());
    Run list = rota("agents", "list", "--order", "inbox", "--limit", "5");
    assertTrue(list.out().startsWith("AGENT"), list.out());
  }

  @Test
  void notifiesAndReportsADuplicate() {
    String id = newAgent();
    Run first =
        rota(
            "notify",
            id,
            "--type",
            "mention",
            "--payload",
            "{\"postId\":\"p9\"}",
            "--dedupe-key",
            "p9");
    assertEquals(0, first.exit(), first.err());
    assertTrue(first.out().startsWith("accepted "), first.out());

    Run again = rota("notify", id, "--type", "mention", "--dedupe-key", "p9");
    assertTrue(again.out().startsWith("duplicate of "), again.out());
    assertEquals(1, client.getAgent(id).inbox().unread());
  }

  @Test
  void explainSaysClearlyWhenTheServerAnswers404() {
    String id = newAgent();
    Run explain = rota("agents", "explain", id);
    if (explain.exit() == RotaCli.OK) {
      assertTrue(explain.out().contains("eligible"), explain.out());
    } else {
      assertEquals(RotaCli.NOT_FOUND, explain.exit(), explain.err());
      assertTrue(
          explain.err().contains("/v1/agents/" + id + "/explain answered 404"), explain.err());
      assertTrue(explain.err().contains("does not serve explain yet"), explain.err());
      assertEquals("", explain.out());
    }
  }

  @Test
  void listsAndRedrivesADeadLetter() throws Exception {
    String id = "agent-" + UUID.randomUUID();
    client.registerAgent(id, AgentSpec.create().capabilities(capability).maxAttempts(1));
    client.notify(id, Notification.of("mention"));
    ClaimResult claim =
        client.claim("r-" + capability, RunnerMode.NOTIFICATION, Set.of(capability), 10, 30);
    client.fail(claim.assignment().leaseId(), "r-" + capability, Outcome.cancel("bad input"));

    JsonNode letters =
        Eventually.await(
            "the dead letter listed",
            Duration.ofSeconds(20),
            () -> {
              try {
                JsonNode list = json(rota("dead-letters", "list", "--agent", id, "--json"));
                return list.path("deadLetters").size() > 0 ? list.path("deadLetters") : null;
              } catch (Exception e) {
                throw new AssertionError(e);
              }
            });
    String deadLetterId = letters.get(0).path("id").asText();
    Run table = rota("dead-letters", "list", "--agent", id);
    assertTrue(
        table.out().contains(deadLetterId) && table.out().contains("bad input"), table.out());

    Run redrive = rota("dead-letters", "redrive", deadLetterId);
    assertEquals(0, redrive.exit(), redrive.err());
    assertEquals("redriven " + deadLetterId, redrive.out().strip());
    assertEquals(1, client.getAgent(id).inbox().unread());
  }

  @Test
  void discardsDeadLettersForGood() throws Exception {
    String id = "agent-" + UUID.randomUUID();
    client.registerAgent(id, AgentSpec.create().capabilities(capability).maxAttempts(1));
    client.notify(id, Notification.of("mention"));
    ClaimResult claim =
        client.claim("r-" + capability, RunnerMode.NOTIFICATION, Set.of(capability), 10, 30);
    client.fail(claim.assignment().leaseId(), "r-" + capability, Outcome.cancel("unwanted"));
    String deadLetterId =
        Eventually.await(
            "the dead letter listed",
            Duration.ofSeconds(20),
            () -> client.deadLetters(id, 10).stream().findFirst().map(d -> d.id()).orElse(null));

    Run discard = rota("dead-letters", "discard", deadLetterId, "--json");
    assertEquals(0, discard.exit(), discard.err());
    assertEquals(deadLetterId, json(discard).path("discarded").asText());
    assertEquals(0, client.getAgent(id).deadLetters());
    assertEquals(0, client.getAgent(id).inbox().unread());

    Run again = rota("dead-letters", "discard", deadLetterId);
    assertEquals(RotaCli.NOT_FOUND, again.exit());
    assertTrue(again.err().startsWith("rota: 404 not_found"), again.err());
    assertEquals("", again.out());
  }

  @Test
  void pausesAndResumesTheSystem() {
    try {
      Run pause = rota("pause");
      assertEquals(0, pause.exit(), pause.err());
      assertEquals("paused", pause.out().strip());
    } finally {
      Run resume = rota("resume");
      assertEquals("running", resume.out().strip());
    }
  }

  @Test
  void printsEventsForOneAgent() throws Exception {
    String id = newAgent();
    Thread producer =
        new Thread(
            () -> {
              for (int i = 0; i < 8; i++) {
                try {
                  // Spread over seconds on purpose: the stream must print events as they come.
                  Thread.sleep(500);
                } catch (InterruptedException e) {
                  return;
                }
                client.notify(id, Notification.of("mention").dedupeKey("k" + i));
              }
            });
    producer.start();
    Run events = rota("events", "--agent", id, "--seconds", "5", "--json");
    producer.join();
    assertEquals(0, events.exit(), events.err());
    String first =
        events.out().lines().findFirst().orElseThrow(() -> new AssertionError("no events"));
    JsonNode event = ConnectionOptions.JSON.readTree(first);
    assertEquals("notification.accepted", event.path("type").asText());
    assertEquals(id, event.path("agentId").asText());
  }

  @Test
  void tenantsAreSetListedAndDeleted() throws Exception {
    String name = "cli-" + UUID.randomUUID().toString().substring(0, 8);
    Run set = rota("tenants", "set", name, "--weight", "3", "--max-concurrent", "7");
    assertEquals(0, set.exit(), set.err());
    assertEquals(name + ": weight 3, max concurrent 7, max per minute -", set.out().strip());

    Run table = rota("tenants");
    assertEquals(0, table.exit(), table.err());
    assertTrue(table.out().startsWith("TENANT"), table.out());
    String line = table.out().lines().filter(l -> l.startsWith(name)).findFirst().orElseThrow();
    assertTrue(line.matches(name + "\\s+3\\s+7\\s+-\\s+0\\s+0\\s+0\\s+0\\s+.*"), line);
    assertTrue(table.out().lines().anyMatch(l -> l.startsWith("default ")), table.out());

    JsonNode changed =
        json(rota("tenants", "set", name, "--weight", "2", "--max-per-minute", "60", "--json"));
    assertEquals(2, changed.path("weight").asInt(), changed.toString());
    assertTrue(changed.path("maxConcurrent").isNull(), "a cap not given is removed");
    assertEquals(60, changed.path("maxActivationsPerMinute").asInt());
    JsonNode listed = json(rota("tenants", "--json"));
    boolean found = false;
    for (JsonNode t : listed.path("tenants")) {
      found |= t.path("tenant").asText().equals(name);
    }
    assertTrue(found, listed.toString());

    Run deleted = rota("tenants", "delete", name);
    assertEquals(0, deleted.exit(), deleted.err());
    assertEquals(name + ": deleted", deleted.out().strip());
    assertEquals(RotaCli.NOT_FOUND, rota("tenants", "delete", name).exit());
    Run refused = rota("tenants", "delete", "default");
    assertEquals(RotaCli.REFUSED, refused.exit());
    assertTrue(refused.err().contains("default"), refused.err());
    assertEquals(RotaCli.REFUSED, rota("tenants", "set", name, "--weight", "0").exit());
    assertEquals(RotaCli.USAGE, rota("tenants", "set", name).exit(), "--weight is required");
  }

  @Test
  void theClientOfACommandWorksInTheTenantOfTheOptionOrOfRotaTenant() {
    var fromOption = RotaCli.commandLine(Map.of()).parseArgs("tenants", "--tenant", "acme");
    try (RotaClient c =
        ((TenantsCommand) fromOption.subcommand().commandSpec().userObject()).options.client()) {
      assertEquals("acme", c.tenants().clientTenant());
    }
    var fromEnvironment = RotaCli.commandLine(Map.of("ROTA_TENANT", "beta")).parseArgs("tenants");
    try (RotaClient c =
        ((TenantsCommand) fromEnvironment.subcommand().commandSpec().userObject())
            .options.client()) {
      assertEquals("beta", c.tenants().clientTenant());
    }
    var without = RotaCli.commandLine(Map.of()).parseArgs("tenants");
    try (RotaClient c =
        ((TenantsCommand) without.subcommand().commandSpec().userObject()).options.client()) {
      assertEquals(null, c.tenants().clientTenant());
    }
  }

  @Test
  void exitCodesScriptsCanRelyOn() throws Exception {
    Run unknown = rota("agents", "get", "no-such-agent-" + capability);
    assertEquals(RotaCli.NOT_FOUND, unknown.exit());
    assertTrue(unknown.err().startsWith("rota: 404 not_found"), unknown.err());

    Run invalid = rota("notify", newAgent(), "--type", "x", "--payload", "{not json");
    assertEquals(RotaCli.USAGE, invalid.exit(), invalid.err());

    Run usage = rota("agents", "get");
    assertEquals(RotaCli.USAGE, usage.exit());

    int closedPort;
    try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      closedPort = socket.getLocalPort();
    }
    Run down = rotaWith(Map.of("ROTA_URL", "http://127.0.0.1:" + closedPort), "stats");
    assertEquals(RotaCli.UNAVAILABLE, down.exit(), down.err());
    assertTrue(down.err().contains("cannot connect"), down.err());

    Run flagWins =
        rotaWith(
            Map.of("ROTA_URL", "http://127.0.0.1:" + closedPort),
            "stats",
            "--url",
            RealNode.uri().toString());
    assertEquals(0, flagWins.exit(), flagWins.err());
  }
}
