package dev.rota.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class SeedNodesTest {

  @Test
  void turnsHostAndPortIntoAddressesOfTheRotaSystem() {
    assertEquals(
        List.of("pekko://rota@10.0.0.1:25520", "pekko://rota@node-2.example:25521"),
        SeedNodes.parse("10.0.0.1:25520,node-2.example:25521", "rota"));
  }

  @Test
  void keepsFullAddressesAndIgnoresBlanksAndSpaces() {
    assertEquals(
        List.of("pekko://rota@10.0.0.1:25520", "pekko://rota@10.0.0.2:25520"),
        SeedNodes.parse(" pekko://rota@10.0.0.1:25520 , ,10.0.0.2:25520, ", "rota"));
  }

  @Test
  void acceptsBracketedIpv6Hosts() {
    assertEquals(List.of("pekko://rota@[::1]:25520"), SeedNodes.parse("[::1]:25520", "rota"));
  }

  @Test
  void isEmptyForABlankList() {
    assertEquals(List.of(), SeedNodes.parse("  ", "rota"));
  }

  @ParameterizedTest
  @ValueSource(
      strings = {
        "10.0.0.1",
        "10.0.0.1:",
        "10.0.0.1:port",
        "10.0.0.1:70000",
        "pekko://other@10.0.0.1:25520",
        "http://10.0.0.1:25520",
        "pekko://rota@10.0.0.1"
      })
  void refusesEntriesThatAreNotAddressesOfTheRotaSystem(String entry) {
    StartupException e =
        assertThrows(StartupException.class, () -> SeedNodes.parse("10.0.0.9:1," + entry, "rota"));
    assertTrue(e.getMessage().contains("'" + entry + "'"), e.getMessage());
    assertTrue(e.getMessage().contains("ROTA_SEED_NODES"), e.getMessage());
  }
}
