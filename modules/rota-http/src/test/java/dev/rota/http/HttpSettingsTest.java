package dev.rota.http;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.typesafe.config.ConfigException;
import com.typesafe.config.ConfigFactory;
import java.time.Duration;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** The {@code rota.http} settings: documented defaults, and token lists that fail loudly. */
class HttpSettingsTest {

  private static HttpSettings settings(String overrides) {
    return HttpSettings.from(
        ConfigFactory.parseString(overrides).withFallback(ConfigFactory.load()));
  }

  private static Map<String, Set<Role>> roles(HttpSettings settings) {
    Map<String, Set<Role>> roles = new java.util.HashMap<>();
    settings.tokens().forEach((token, caller) -> roles.put(token, caller.roles()));
    return roles;
  }

  @Test
  void readsATokensTenantsAndRunnerIds() {
    HttpSettings settings =
        settings(
            """
            rota.http.tokens = [
              { token = "r-1", roles = [runner], tenants = [acme], runnerIds = ["acme-*", "x"] }
              { token = "p-1", roles = [producer] }
            ]
            """);

    Caller runner = settings.tokens().get("r-1");
    assertEquals(Set.of("acme"), runner.tenants());
    assertTrue(runner.mayUse("acme"));
    assertFalse(runner.mayUse("beta"));
    assertTrue(runner.mayActAs("acme-7"));
    assertTrue(runner.mayActAs("x"));
    assertFalse(runner.mayActAs("x2"));
    assertFalse(runner.mayActAs("beta-1"));
    Caller producer = settings.tokens().get("p-1");
    assertTrue(producer.everyTenant());
    assertTrue(producer.mayActAs("anything"));
    assertFalse(producer.mayActAs("10.0.0.1:25520/default-0"), "a node's own runner");
  }

  @Test
  void aTokenEntryWithAKeyTheNodeDoesNotKnowStopsTheStart() {
    ConfigException e =
        assertThrows(
            ConfigException.class,
            () ->
                settings(
                    "rota.http.tokens = [{ token = \"s3cret\", roles = [producer],"
                        + " tenant = [acme] }]"));
    assertTrue(e.getMessage().contains("rota.http.tokens[0].tenant"), e.getMessage());
    assertTrue(e.getMessage().contains("unknown token setting"), e.getMessage());
    assertFalse(e.getMessage().contains("s3cret"), e.getMessage());
  }

  /**
   * Runner ids are one namespace across tenants: a runner token scoped to a tenant but free to act
   * as any runner id could degrade another tenant's runners, so it stops the start.
   */
  @Test
  void aRunnerTokenScopedToTenantsWithoutRunnerIdsStopsTheStart() {
    ConfigException e =
        assertThrows(
            ConfigException.class,
            () ->
                settings(
                    "rota.http.tokens = [{ token = \"s3cret\", roles = [producer, runner],"
                        + " tenants = [acme] }]"));
    assertTrue(e.getMessage().contains("rota.http.tokens[0].runnerIds"), e.getMessage());
    assertFalse(e.getMessage().contains("s3cret"), e.getMessage());
    // Scoped with runner ids, or a runner of every tenant, or a scoped producer: all start.
    settings(
        """
        rota.http.tokens = [
          { token = "a", roles = [runner], tenants = [acme], runnerIds = ["acme-*"] }
          { token = "b", roles = [runner] }
          { token = "c", roles = [producer], tenants = [acme] }
        ]
        """);
  }

  @Test
  void refusesBadScopes() {
    for (String scope :
        new String[] {
          "tenants = [\"Acme\"]",
          "tenants = []",
          "runnerIds = []",
          "runnerIds = [\"*\"]",
          "runnerIds = [\"a*b\"]"
        }) {
      assertThrows(
          ConfigException.class,
          () -> settings("rota.http.tokens = [{ token = \"t\", roles = [runner], " + scope + " }]"),
          scope);
    }
  }

  @Test
  void defaultsAllowEveryoneWithFiveSecondAsksAnd64KiBBodies() {
    HttpSettings settings = settings("");

    assertEquals(Duration.ofSeconds(5), settings.askTimeout());
    assertEquals(65536, settings.maxBodyBytes());
    assertEquals(5, settings.retryAfterSeconds());
    assertFalse(settings.authEnabled());
  }

  @Test
  void readsTokensWithTheirRoles() {
    HttpSettings settings =
        settings(
            """
            rota.http.tokens = [
              { token = "p-1", roles = [producer] }
              { token = "a-1", roles = [admin, runner] }
            ]
            """);

    assertTrue(settings.authEnabled());
    assertEquals(
        Map.of("p-1", Set.of(Role.PRODUCER), "a-1", Set.of(Role.ADMIN, Role.RUNNER)),
        roles(settings));
  }

  @Test
  void readsTokensFromTheEnvironmentsTextAndFromAMountedFile() throws Exception {
    java.nio.file.Path file = java.nio.file.Files.createTempFile("rota-tokens", ".txt");
    try {
      java.nio.file.Files.writeString(
          file, "# the cluster's tokens\nprom-1:metrics\nrun-1:runner,producer  # both\n");
      HttpSettings settings =
          settings(
              "rota.http.tokens-list = \"adm-1:admin; p-2:producer\"\n"
                  + "rota.http.tokens-file = \""
                  + file.toString().replace("\\", "/")
                  + "\"");

      assertEquals(
          Map.of(
              "adm-1", Set.of(Role.ADMIN),
              "p-2", Set.of(Role.PRODUCER),
              "prom-1", Set.of(Role.METRICS),
              "run-1", Set.of(Role.RUNNER, Role.PRODUCER)),
          roles(settings));
    } finally {
      java.nio.file.Files.delete(file);
    }
  }

  @Test
  void refusesAMalformedTokenEntryOrAnUnreadableFileWithoutPrintingTheToken() {
    ConfigException e =
        assertThrows(ConfigException.class, () -> settings("rota.http.tokens-list = \"secret-x\""));
    assertFalse(e.getMessage().contains("secret-x"), e.getMessage());
    assertThrows(
        ConfigException.class,
        () -> settings("rota.http.tokens-file = \"/nonexistent/rota/tokens\""));
    assertThrows(
        ConfigException.class, () -> settings("rota.http.tokens-list = \"t:admin t:runner\""));
  }

  @Test
  void refusesAnOpenApiOnAReachableInterfaceUnlessAnonymousAccessIsNamed() {
    IllegalStateException e =
        assertThrows(
            IllegalStateException.class, () -> settings("").requireSafeExposure("0.0.0.0"));
    assertTrue(e.getMessage().contains("ROTA_API_TOKENS"), e.getMessage());

    settings("").requireSafeExposure("127.0.0.1");
    settings("").requireSafeExposure("localhost");
    settings("rota.http.allow-anonymous = on").requireSafeExposure("0.0.0.0");
    settings("rota.http.tokens-list = \"t:admin\"").requireSafeExposure("0.0.0.0");
  }

  @Test
  void refusesATokenEntryWithoutToken() {
    assertThrows(
        ConfigException.class, () -> settings("rota.http.tokens = [{ roles = [producer] }]"));
  }

  @Test
  void refusesAnUnknownRole() {
    ConfigException e =
        assertThrows(
            ConfigException.class,
            () -> settings("rota.http.tokens = [{ token = t, roles = [producers] }]"));

    assertTrue(e.getMessage().contains("producers"), e.getMessage());
  }

  @Test
  void refusesATokenWithoutRoles() {
    assertThrows(
        ConfigException.class, () -> settings("rota.http.tokens = [{ token = t, roles = [] }]"));
  }

  @Test
  void neverPrintsTheTokens() {
    HttpSettings settings = settings("rota.http.tokens = [{ token = s3cret, roles = [admin] }]");

    assertFalse(settings.toString().contains("s3cret"), settings.toString());
  }

  @Test
  void idleConnectionsOutlastTheLongestLongPoll() {
    Duration longestClaim =
        Duration.ofSeconds(dev.rota.http.api.ClaimRequest.MAX_WAIT_SECONDS)
            .plus(settings("").askTimeout());

    Duration idle = ConfigFactory.load().getDuration("pekko.http.server.idle-timeout");

    assertTrue(idle.compareTo(longestClaim) > 0, idle + " vs " + longestClaim);
  }
}
