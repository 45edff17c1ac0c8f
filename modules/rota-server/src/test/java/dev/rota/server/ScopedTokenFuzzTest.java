package dev.rota.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.typesafe.config.Config;
import com.typesafe.config.ConfigFactory;
import dev.rota.server.fuzz.HttpFuzzer;
import dev.rota.server.testing.Databases;
import dev.rota.server.testing.RawHttp;
import dev.rota.server.testing.RawHttp.Response;
import dev.rota.server.testing.TestDatabase;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.pekko.actor.testkit.typed.javadsl.LogCapturingExtension;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The fuzz suite with tokens scoped to a tenant: a node with tenants {@code acme} and {@code beta},
 * whose {@code acme} agents (the fuzzer's own pool ids) hold a secret in their name and
 * notifications. The fuzzer then sends its hostile and valid requests with {@code beta}'s producer,
 * runner and admin tokens, half of them naming a tenant ({@code acme} among others). No answer may
 * be a 5xx other than the documented 503, none may hold the secret, and afterwards every {@code
 * acme} agent is exactly as it was: same name, same single unread notification. For {@code
 * rota.fuzz.scoped-seconds}: 5 s by default, ten minutes with {@code mvn verify -Pfuzz}.
 */
@ExtendWith(LogCapturingExtension.class)
class ScopedTokenFuzzTest extends NodeOnDatabase {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final String SECRET = "acme-secret-7f3c";
  private static final Config TENANTS =
      ConfigFactory.parseString(
          """
          rota.tenants { acme {}, beta {} }
          rota.http.tokens = [
            { token = "p1", roles = [producer], tenants = [acme] }
            { token = "p2", roles = [producer], tenants = [beta] }
            { token = "r2", roles = [runner], tenants = [beta], runnerIds = ["r1", "r2", "r3"] }
            { token = "beta-admin", roles = [admin], tenants = [beta] }
            { token = "admin", roles = [admin] }
          ]
          """);

  @Override
  TestDatabase newDatabase() {
    return Databases.h2();
  }

  @Override
  Config nodeConfig(TestDatabase database) {
    return h2Config(TENANTS, database);
  }

  @Test
  void scopedTokensGetTheContractsAnswersAndNeverAnotherTenantsData() {
    int port = node.httpPort();
    for (int i = 0; i < HttpFuzzer.POOL; i++) {
      String agent = "/v1/agents/" + HttpFuzzer.poolAgent(i);
      assertEquals(201, send(port, "p1", "PUT", agent, "{\"name\": \"" + SECRET + "\"}").status());
      assertEquals(
          202,
          send(
                  port,
                  "p1",
                  "POST",
                  agent + "/notifications",
                  "{\"type\": \"t\", \"payload\": {\"s\": \"" + SECRET + "\"}}")
              .status());
    }
    Duration budget = Duration.ofSeconds(Long.getLong("rota.fuzz.scoped-seconds", 5));
    HttpFuzzer fuzzer =
        new HttpFuzzer(port, List.of("p2", "r2", "beta-admin"), "beta-admin", SECRET);

    HttpFuzzer.Report report = fuzzer.run(budget, Long.MAX_VALUE);
    fuzzer.settle();

    String summary =
        "scoped fuzz: "
            + report.requests()
            + " requests, by status "
            + report.byStatus()
            + "\n"
            + String.join(
                "\n", report.problems().subList(0, Math.min(20, report.problems().size())));
    System.out.println(summary);
    assertTrue(report.requests() > 5 * budget.toSeconds(), "the fuzzer barely ran: " + summary);
    assertEquals(List.of(), report.problems(), summary);
    assertEquals(0, report.serverErrors() - report.byStatus().getOrDefault(503, 0L), summary);
    List<String> changed = new ArrayList<>();
    for (int i = 0; i < HttpFuzzer.POOL; i++) {
      Response shown = send(port, "p1", "GET", "/v1/agents/" + HttpFuzzer.poolAgent(i), null);
      JsonNode agent = json(shown);
      if (shown.status() != 200
          || !SECRET.equals(agent.path("name").asText())
          || agent.at("/inbox/unread").asInt() != 1
          || !agent.path("lease").isNull()) {
        changed.add(HttpFuzzer.poolAgent(i) + ": " + shown);
      }
    }
    assertEquals(List.of(), changed, "acme's agents changed under beta's tokens");
  }

  private static Response send(int port, String token, String method, String target, String body) {
    return RawHttp.send(
        port,
        method,
        target,
        body == null
            ? Map.of("Authorization", "Bearer " + token)
            : Map.of("Authorization", "Bearer " + token, "Content-Type", "application/json"),
        body == null ? null : body.getBytes(StandardCharsets.UTF_8));
  }

  private static JsonNode json(Response response) {
    try {
      return JSON.readTree(response.body());
    } catch (java.io.IOException e) {
      throw new AssertionError("not JSON: " + response, e);
    }
  }
}
