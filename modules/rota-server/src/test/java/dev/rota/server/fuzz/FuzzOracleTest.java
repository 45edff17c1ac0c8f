package dev.rota.server.fuzz;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.rota.server.testing.RawHttp.Response;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/** The fuzz suite's checker catches each way an answer can break the contract. */
class FuzzOracleTest {

  private static Response answer(int status, String type, String body, String... headers) {
    Map<String, List<String>> h = new LinkedHashMap<>();
    if (type != null) {
      h.put("content-type", List.of(type));
    }
    for (int i = 0; i < headers.length; i += 2) {
      h.put(headers[i], List.of(headers[i + 1]));
    }
    return new Response(status, h, body.getBytes(StandardCharsets.UTF_8));
  }

  private static final String JSON = "application/json";

  @Test
  void passesAnswersThatKeepTheContract() {
    assertEquals(Optional.empty(), FuzzOracle.problem(answer(200, JSON, "{\"a\": 1}")));
    assertEquals(Optional.empty(), FuzzOracle.problem(answer(204, null, "")));
    assertEquals(
        Optional.empty(),
        FuzzOracle.problem(answer(400, JSON, "{\"error\": \"invalid\", \"message\": \"m\"}")));
    assertEquals(
        Optional.empty(),
        FuzzOracle.problem(
            answer(
                503,
                JSON,
                "{\"error\": \"unavailable\", \"message\": \"m\"}",
                "retry-after",
                "5")));
  }

  @Test
  void judgesAnAnswerToHeadByItsStatusAndHeadersAlone() {
    assertEquals(
        Optional.empty(), FuzzOracle.problem("HEAD", answer(405, JSON, "", "allow", "GET, PUT")));
    assertTrue(FuzzOracle.problem("HEAD", answer(405, JSON, "")).isPresent());
    assertTrue(FuzzOracle.problem("HEAD", answer(500, JSON, "")).isPresent());
    assertTrue(FuzzOracle.problem("GET", answer(405, JSON, "", "allow", "GET")).isPresent());
  }

  @Test
  void flagsA500() {
    assertTrue(
        FuzzOracle.problem(answer(500, JSON, "{\"error\": \"internal\", \"message\": \"m\"}"))
            .isPresent());
  }

  @Test
  void flagsAPlainTextError() {
    assertTrue(FuzzOracle.problem(answer(414, "text/plain", "URI too long")).isPresent());
  }

  @Test
  void flagsAnErrorWithoutItsFields() {
    assertTrue(FuzzOracle.problem(answer(400, JSON, "{\"message\": \"m\"}")).isPresent());
    assertTrue(FuzzOracle.problem(answer(404, JSON, "not json")).isPresent());
  }

  @Test
  void flagsACodeThatDoesNotFitTheStatus() {
    assertTrue(
        FuzzOracle.problem(answer(404, JSON, "{\"error\": \"invalid\", \"message\": \"m\"}"))
            .isPresent());
  }

  @Test
  void flagsA503Or429WithoutRetryAfterAnd405WithoutAllow() {
    assertTrue(
        FuzzOracle.problem(answer(503, JSON, "{\"error\": \"unavailable\", \"message\": \"m\"}"))
            .isPresent());
    assertTrue(
        FuzzOracle.problem(answer(429, JSON, "{\"error\": \"inbox_full\", \"message\": \"m\"}"))
            .isPresent());
    assertTrue(
        FuzzOracle.problem(
                answer(405, JSON, "{\"error\": \"method_not_allowed\", \"message\": \"m\"}"))
            .isPresent());
  }

  @Test
  void flagsAnUndocumentedStatusAndABrokenJsonSuccess() {
    assertTrue(
        FuzzOracle.problem(answer(501, JSON, "{\"error\": \"x\", \"message\": \"m\"}"))
            .isPresent());
    assertTrue(FuzzOracle.problem(answer(200, JSON, "{broken")).isPresent());
  }
}
