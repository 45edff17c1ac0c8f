package dev.rota.cluster.pool;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.typesafe.config.ConfigFactory;
import dev.rota.core.model.RunnerMode;
import dev.rota.core.pool.PoolSpec;
import java.time.Duration;
import java.util.Set;
import org.junit.jupiter.api.Test;

class PoolScalerSettingsTest {

  private static PoolScalerSettings settings(String overrides) {
    return PoolScalerSettings.from(
        ConfigFactory.parseString(overrides).withFallback(ConfigFactory.load()).resolve());
  }

  @Test
  void withoutPoolsTheScalerSizesOneCatchAllHybridPool() {
    PoolScalerSettings s = settings("");
    assertFalse(s.configured());
    assertEquals(1, s.pools().size());
    PoolSpec pool = s.pools().get(0);
    assertEquals("default", pool.name());
    assertEquals(RunnerMode.HYBRID, pool.mode());
    assertTrue(pool.anyCapabilities());
    assertEquals(Set.of("*"), pool.shownCapabilities());
    assertEquals(1, pool.min());
    assertEquals(Duration.ofSeconds(60), s.policy().scaleDownDelay());
  }

  @Test
  void poolsAreNamedByModeAndCapabilitiesAndTakeTheDefaults() {
    PoolScalerSettings s =
        settings(
            """
            rota.pools.target-staleness = 2h
            rota.pools.pools = [
              { mode = notification, capabilities = [web, code], max = 32 }
              { name = explore, mode = exploration }
            ]
            """);
    assertTrue(s.configured());
    PoolSpec notify = s.pools().get(0);
    assertEquals("notification-code-web", notify.name());
    assertEquals(32, notify.max());
    assertEquals(0, notify.min());
    assertEquals(0.75, notify.targetUtilisation());
    assertEquals(Duration.ZERO, notify.targetStaleness());
    assertEquals(Duration.ofHours(2), s.pools().get(1).targetStaleness());
  }

  @Test
  void refusesWhatCannotWorkNamingTheKey() {
    assertEquals(
        "rota.pools.pools[0]: pool notification: needs 0 <= min <= max",
        assertThrows(
                IllegalArgumentException.class,
                () -> settings("rota.pools.pools = [{mode = notification, min = 5, max = 2}]"))
            .getMessage());
    assertTrue(
        assertThrows(
                IllegalArgumentException.class,
                () -> settings("rota.pools.pools = [{mode = sometimes}]"))
            .getMessage()
            .startsWith("rota.pools.pools[0].mode"));
    assertTrue(
        assertThrows(
                IllegalArgumentException.class,
                () -> settings("rota.pools.pools = [{mode = hybrid}, {mode = hybrid}]"))
            .getMessage()
            .contains("duplicate name hybrid"));
    assertTrue(
        assertThrows(IllegalArgumentException.class, () -> settings("rota.pools.hysteresis = 1"))
            .getMessage()
            .contains("hysteresis"));
    assertTrue(
        assertThrows(
                IllegalArgumentException.class,
                () -> settings("rota.pools.pools = [{mode = hybrid, capabilities = [\"*\", x]}]"))
            .getMessage()
            .contains("stands alone"));
    assertTrue(
        assertThrows(IllegalArgumentException.class, () -> settings("rota.pools.interval = 0s"))
            .getMessage()
            .contains("rota.pools.interval"));
  }
}
