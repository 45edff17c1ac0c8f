package dev.rota.server;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.typesafe.config.Config;
import com.typesafe.config.ConfigFactory;
import org.junit.jupiter.api.Test;

/**
 * Settings a node cannot honour stop its start with one line naming them, before it opens its
 * database: a scope the node would ignore must not leave a token with more than was meant.
 */
class StartupRefusalsTest {

  private static Config node(String extra) {
    return RotaConfig.load(
        ConfigFactory.parseString(extra).withFallback(RotaNodeContract.TEST_NODE),
        java.util.Map.of());
  }

  @Test
  void aTokenWithASettingTheNodeDoesNotKnowStopsTheStart() {
    StartupException refused =
        assertThrows(
            StartupException.class,
            () ->
                RotaNode.startWith(
                    node(
                        "rota.http.tokens = [{ token = \"s3cret\", roles = [runner],"
                            + " runnerId = [\"a\"] }]")));

    assertTrue(refused.getMessage().contains("rota.http.tokens[0].runnerId"), refused.getMessage());
    assertFalse(refused.getMessage().contains("\n"), "one line: " + refused.getMessage());
    assertFalse(refused.getMessage().contains("s3cret"), refused.getMessage());
  }

  @Test
  void aTenantWithASettingTheNodeDoesNotKnowStopsTheStart() {
    StartupException refused =
        assertThrows(
            StartupException.class,
            () -> RotaNode.startWith(node("rota.tenants { acme { wieght = 3 } }")));

    assertTrue(refused.getMessage().contains("rota.tenants.acme.wieght"), refused.getMessage());
  }
}
