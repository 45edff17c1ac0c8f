package dev.rota.client;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.sun.net.httpserver.HttpServer;
import dev.rota.client.testing.Eventually;
import dev.rota.client.testing.RealNode;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * A client's tenant: every agent call carries {@code ?tenant=} (checked on a loopback server that
 * records what it is sent, so the test does not depend on the node's tenant resolution), and the
 * tenant admin calls against a real node.
 */
@ExtendWith(RealNode.class)
class TenantClientTest {

  /** Answers every request 200 with {@code answer} and records its method and URI. */
  private static HttpServer recording(List<String> requests, String answer) throws IOException {
    HttpServer server =
        HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
    server.createContext(
        "/",
        exchange -> {
          requests.add(exchange.getRequestMethod() + " " + exchange.getRequestURI());
          exchange.getRequestBody().readAllBytes();
          byte[] body = answer.getBytes(StandardCharsets.UTF_8);
          exchange.getResponseHeaders().add("Content-Type", "application/json");
          exchange.sendResponseHeaders(200, body.length);
          try (OutputStream out = exchange.getResponseBody()) {
            out.write(body);
          }
        });
    server.start();
    return server;
  }

  @Test
  void everyAgentCallOfATenantsClientNamesItsTenant() throws IOException {
    List<String> requests = new CopyOnWriteArrayList<>();
    HttpServer server = recording(requests, "{\"agentId\":\"a1\"}");
    try (RotaClient client =
        RotaClient.builder(URI.create("http://127.0.0.1:" + server.getAddress().getPort()))
            .tenant("acme")
            .retries(0)
            .build()) {
      assertEquals("acme", client.tenants().clientTenant());
      // The answers are not each call's shape: only what was sent counts here.
      List<Runnable> calls =
          List.of(
              () -> client.registerAgent("a1", AgentSpec.create()),
              () -> client.getAgent("a1"),
              () -> client.listAgents(AgentQuery.stalest().limit(5)),
              () -> client.pauseAgent("a1"),
              () -> client.resumeAgent("a1"),
              () -> client.explain("a1"),
              () -> client.history("a1", 10),
              () -> client.notify("a1", Notification.of("mention")),
              () -> client.deleteAgent("a1"),
              client::stats);
      for (Runnable call : calls) {
        try {
          call.run();
        } catch (RotaException unreadable) {
          // an answer of another call's shape
        }
      }
    } finally {
      server.stop(0);
    }
    assertEquals(
        List.of(
            "PUT /v1/agents/a1?tenant=acme",
            "GET /v1/agents/a1?tenant=acme",
            "GET /v1/agents?order=stalest&limit=5&tenant=acme",
            "POST /v1/agents/a1/pause?tenant=acme",
            "POST /v1/agents/a1/resume?tenant=acme",
            "GET /v1/agents/a1/explain?tenant=acme",
            "GET /v1/agents/a1/history?limit=10&tenant=acme",
            "POST /v1/agents/a1/notifications?tenant=acme",
            "DELETE /v1/agents/a1?tenant=acme",
            // not an agent call: no tenant
            "GET /admin/stats"),
        requests);
  }

  @Test
  void aClientWithoutTenantSendsNone() throws IOException {
    List<String> requests = new CopyOnWriteArrayList<>();
    HttpServer server = recording(requests, "{\"agentId\":\"a1\"}");
    try (RotaClient client =
        RotaClient.builder(URI.create("http://127.0.0.1:" + server.getAddress().getPort()))
            .build()) {
      client.getAgent("a1");
    } finally {
      server.stop(0);
    }
    assertEquals(List.of("GET /v1/agents/a1"), requests);
  }

  @Test
  void createsChangesListsAndDeletesATenant() {
    String name = "t-" + UUID.randomUUID().toString().substring(0, 8);
    try (RotaClient client = RotaClient.builder(RealNode.uri()).build()) {
      JsonNode created = client.tenants().set(name, 3, 10, null);
      assertEquals(name, created.get("tenant").asText());
      assertEquals(3, created.get("weight").asInt());
      assertEquals(10, created.get("maxConcurrent").asInt());
      assertTrue(created.get("maxActivationsPerMinute").isNull());

      client.tenants().set(name, 5, null, 600);
      JsonNode view = client.tenants().get(name);
      assertEquals(5, view.get("weight").asInt());
      assertEquals(600, view.get("maxActivationsPerMinute").asInt());
      List<String> names = new java.util.ArrayList<>();
      client.tenants().list().get("tenants").forEach(t -> names.add(t.get("tenant").asText()));
      assertTrue(names.contains(name) && names.contains("default"), names.toString());

      client.tenants().delete(name);
      assertThrows(RotaException.NotFound.class, () -> client.tenants().get(name));
      assertThrows(RotaException.Conflict.class, () -> client.tenants().delete("default"));
      assertThrows(RotaException.Invalid.class, () -> client.tenants().set(name, 0, null, null));
    }
  }

  @Test
  void aTenantsClientWorksInItsTenantOnARealNode() {
    String tenant = "t-" + UUID.randomUUID().toString().substring(0, 8);
    try (RotaClient admin = RotaClient.builder(RealNode.uri()).build();
        RotaClient inTenant = RotaClient.builder(RealNode.uri()).tenant(tenant).build()) {
      admin.tenants().set(tenant, 1, null, null);
      Agent agent = inTenant.registerAgent("twin", AgentSpec.create());
      assertEquals("twin", agent.agentId());
      inTenant.notify("twin", Notification.of("mention"));
      assertEquals(1, inTenant.getAgent("twin").inbox().unread());
      // The same id in default is another agent: there is none.
      assertThrows(RotaException.NotFound.class, () -> admin.getAgent("twin"));
      Eventually.await(
          "the read model shows the tenant's agent",
          Duration.ofSeconds(10),
          () -> admin.tenants().get(tenant).get("agents").asLong() == 1 ? true : null);
      assertThrows(RotaException.Conflict.class, () -> admin.tenants().delete(tenant));
      inTenant.deleteAgent("twin");
    }
  }
}
