package dev.rota.http;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import dev.rota.cluster.agent.AgentEntity;
import dev.rota.cluster.assign.Dispatcher;
import dev.rota.cluster.assign.WorkProtocol.Assigned;
import dev.rota.cluster.assign.WorkProtocol.RequestWork;
import dev.rota.cluster.assign.WorkProtocol.WorkReply;
import dev.rota.cluster.tenant.TenantSharesView;
import dev.rota.core.model.AgentConfigPatch;
import dev.rota.core.model.ClaimSpec;
import dev.rota.core.model.Ids;
import dev.rota.core.model.RunnerMode;
import dev.rota.core.tenant.AgentKeys;
import dev.rota.http.testing.ApiCalls;
import dev.rota.http.testing.JUnit5RouteTest;
import dev.rota.http.testing.RotaTestCluster;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.pekko.actor.testkit.typed.javadsl.LogCapturingExtension;
import org.apache.pekko.actor.typed.ActorSystem;
import org.apache.pekko.actor.typed.javadsl.AskPattern;
import org.apache.pekko.http.javadsl.model.HttpRequest;
import org.apache.pekko.http.javadsl.testkit.TestRouteResult;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * {@code GET /admin/tenants} shows the shares the dispatcher applies: a one-node cluster with the
 * production wiring on H2, tenants {@code acme} (weight 3) and {@code beta} (weight 1), four
 * runners claiming through the dispatcher (staleness work: both tenants always have work), each
 * turn held 20 ms. Afterwards the admin view's {@code share.fair}, {@code share.actual} and {@code
 * activationsPerMinute} equal the dispatcher's own figures, and those are the rule's: fair 3 : 1,
 * actual within 5 points of it, activations the grants the runners received.
 */
@ExtendWith(LogCapturingExtension.class)
class TenantSharesAgreeTest extends JUnit5RouteTest {
  private static final String CAP = "shares-agree";
  private static final Duration ASK = Duration.ofSeconds(10);
  private static RotaTestCluster cluster;

  private final ApiCalls api = new ApiCalls(this::run);

  @BeforeAll
  static void startCluster() {
    cluster =
        RotaTestCluster.withDatabase(
            "TenantSharesAgreeTest", "rota.tenants { acme { weight = 3 }, beta { weight = 1 } }");
  }

  @AfterAll
  static void stopCluster() {
    cluster.shutdown();
  }

  @Override
  protected ActorSystem<?> typedSystem() {
    return cluster.system();
  }

  private TestRouteResult run(HttpRequest request) {
    return testRoute(cluster.routes(cluster.settings()).route()).run(request);
  }

  @Test
  void theAdminViewShowsTheSharesTheDispatcherApplies() throws Exception {
    AgentGateway agents = new AgentGateway(cluster.system(), ASK);
    for (int i = 0; i < 10; i++) {
      for (String tenant : List.of("acme", "beta")) {
        var registered =
            agents
                .ask(
                    AgentKeys.key(tenant, "a" + i),
                    r ->
                        new AgentEntity.Register(
                            new AgentConfigPatch(null, List.of(CAP), null, null, null, null, null),
                            r))
                .toCompletableFuture()
                .get(10, TimeUnit.SECONDS);
        assertInstanceOf(AgentEntity.AgentDetails.class, registered);
      }
    }

    Map<String, AtomicLong> granted = new ConcurrentHashMap<>();
    List<CompletableFuture<Void>> runners = new ArrayList<>();
    for (int r = 0; r < 4; r++) {
      String runnerId = "shares-runner-" + r;
      runners.add(
          CompletableFuture.runAsync(
              () -> {
                for (int i = 0; i < 100; i++) {
                  AgentEntity.Granted g = claim(runnerId);
                  String key = Ids.agentOf(g.lease().leaseId()).orElseThrow();
                  granted
                      .computeIfAbsent(AgentKeys.tenantOf(key), t -> new AtomicLong())
                      .incrementAndGet();
                  sleep(20);
                  var done =
                      agents
                          .ask(
                              key,
                              rep ->
                                  new AgentEntity.Complete(
                                      g.lease().leaseId(), runnerId, null, rep))
                          .toCompletableFuture()
                          .join();
                  assertInstanceOf(AgentEntity.Done.class, done);
                }
              }));
    }
    CompletableFuture.allOf(runners.toArray(CompletableFuture[]::new)).get(120, TimeUnit.SECONDS);

    ClusterGateway gateway = new ClusterGateway(cluster.rota(), ASK);
    // Every lease has ended: once the coordinators have published the last of them, the
    // dispatcher's counts stand still, and the view asked next sees the same ones.
    TenantSharesView settled = null;
    TenantSharesView last = null;
    for (int attempt = 0; attempt < 100 && settled == null; attempt++) {
      TenantSharesView view =
          gateway.tenantShares().toCompletableFuture().get(10, TimeUnit.SECONDS);
      if (view.of("acme").leased() == 0
          && view.of("beta").leased() == 0
          && last != null
          && view.tenants().equals(last.tenants())) {
        settled = view;
      }
      last = view;
      sleep(200);
    }
    assertNotNull(settled, "the dispatcher's counts never stood still: " + last);

    JsonNode list = api.get("/admin/tenants");
    TenantSharesView after = gateway.tenantShares().toCompletableFuture().get(10, TimeUnit.SECONDS);
    Map<String, JsonNode> admin = new HashMap<>();
    list.get("tenants").forEach(t -> admin.put(t.get("tenant").asText(), t));
    for (String tenant : List.of("acme", "beta")) {
      TenantSharesView.Share applied = settled.of(tenant);
      assertEquals(applied, after.of(tenant), "the dispatcher's counts stood still");
      JsonNode shown = admin.get(tenant);
      assertEquals(TenantViews.rounded(applied.fair()), shown.at("/share/fair").asDouble(), tenant);
      assertEquals(
          TenantViews.rounded(applied.actual()), shown.at("/share/actual").asDouble(), tenant);
      assertEquals(applied.activations(), shown.get("activationsPerMinute").asLong(), tenant);
    }
    // And what the dispatcher reports is the rule it applies.
    assertEquals(0.75, settled.of("acme").fair(), 1e-9);
    assertEquals(0.25, settled.of("beta").fair(), 1e-9);
    assertEquals(0.75, settled.of("acme").actual(), 0.05, settled.toString());
    assertEquals(0.25, settled.of("beta").actual(), 0.05, settled.toString());
    // The window starts at the dispatcher's first sample, taken with the first publication that
    // named a tenant: its first grant or so may fall before it.
    for (String tenant : List.of("acme", "beta")) {
      long shown = settled.of(tenant).activations();
      long got = granted.get(tenant).get();
      assertTrue(shown <= got && shown >= got - 2, tenant + ": " + shown + " of " + got);
    }
    assertTrue(settled.of("acme").runnerSeconds() > 0, settled.toString());
  }

  private AgentEntity.Granted claim(String runnerId) {
    WorkReply reply =
        AskPattern.<Dispatcher.Command, WorkReply>ask(
                cluster.rota().dispatcher(),
                r ->
                    new RequestWork(
                        new ClaimSpec(
                            runnerId,
                            RunnerMode.EXPLORATION,
                            Set.of(CAP),
                            Duration.ofSeconds(5),
                            60,
                            Set.of()),
                        null,
                        r),
                Duration.ofSeconds(5).plus(ASK),
                cluster.system().scheduler())
            .toCompletableFuture()
            .join();
    return assertInstanceOf(Assigned.class, reply).granted();
  }

  private static void sleep(long millis) {
    try {
      Thread.sleep(millis);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }
}
