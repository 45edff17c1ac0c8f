package dev.rota.client;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

/** 410 {@code gone} (events removed by retention) is its own error, not a lost lease. */
class GoneTest {

  @Test
  void aGoneAnswerIsGoneWithTheOldestRetainedId() {
    RotaException gone =
        HttpTransport.error(
            new HttpTransport.Response(
                410,
                "{\"error\":\"gone\",\"message\":\"removed\",\"oldestRetainedId\":\"1042\"}"
                    .getBytes(StandardCharsets.UTF_8),
                null));
    RotaException.Gone typed = assertInstanceOf(RotaException.Gone.class, gone);
    assertEquals("1042", typed.oldestRetainedId().orElseThrow());
    assertEquals(410, typed.status());

    RotaException lost =
        HttpTransport.error(
            new HttpTransport.Response(
                410,
                "{\"error\":\"lease_lost\",\"message\":\"expired\"}"
                    .getBytes(StandardCharsets.UTF_8),
                null));
    assertTrue(lost instanceof RotaException.LeaseLost);
    assertFalse(lost instanceof RotaException.Gone);
  }
}
