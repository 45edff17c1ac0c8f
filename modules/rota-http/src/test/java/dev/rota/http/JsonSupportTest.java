package dev.rota.http;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.rota.http.api.RegisterAgentRequest;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** How request bodies are read: strictly, with a 400 whose message names the field. */
class JsonSupportTest {

  private static String failureOf(String json) {
    ApiException e =
        assertThrows(
            ApiException.class,
            () ->
                JsonSupport.parse(
                    json.getBytes(StandardCharsets.UTF_8), RegisterAgentRequest.class));
    assertEquals(ApiError.INVALID, e.error());
    return e.getMessage();
  }

  @ParameterizedTest(name = "{0} → {1}")
  @CsvSource(
      delimiter = '|',
      value = {
        "{\"nmae\": \"x\"}                      | unknown field 'nmae' (known fields: capabilities,",
        "{\"priority\": \"5\"}                  | field 'priority' must be an integer",
        "{\"priority\": 1.5}                    | field 'priority' must be an integer",
        "{\"priority\": true}                   | field 'priority' must be an integer",
        "{\"priority\": \"\"}                   | field 'priority' must be an integer",
        "{\"priority\": 99999999999}            | field 'priority' is out of range",
        "{\"name\": 5}                          | field 'name' must be a string",
        "{\"name\": false}                      | field 'name' must be a string",
        "{\"capabilities\": \"code\"}           | field 'capabilities' must be an array",
        "{\"capabilities\": [\"a\", 1]}         | field 'capabilities[1]' must be a string",
        "{\"name\": \"a\", \"name\": \"b\"}     | Duplicate field 'name'",
        "{\"name\":                             | the body is not valid JSON at line 1",
        "{name: 1}                              | the body is not valid JSON at line 1, column 2",
        "{\"name\": \"x\"} trailing             | the body is not valid JSON",
        "[]                                     | the body must be a JSON object",
        "\"text\"                               | the body must be a JSON object",
        "null                                   | the body must be a JSON object, not null",
      })
  void rejectsWithMessageNamingTheProblem(String json, String expected) {
    String message = failureOf(json);
    assertTrue(message.startsWith(expected) || message.contains(expected), message);
  }

  @Test
  void readsAnEmptyBodyAsAnEmptyObject() {
    RegisterAgentRequest request = JsonSupport.parse(" \n".getBytes(), RegisterAgentRequest.class);

    assertNull(request.name());
    assertNull(request.priority());
  }

  @Test
  void writesTimesAsIsoStrings() {
    String json =
        new String(
            JsonSupport.write(new dev.rota.http.api.AgentView.Inbox(1, java.time.Instant.EPOCH)),
            StandardCharsets.UTF_8);

    assertEquals("{\"unread\":1,\"oldestUnreadAt\":\"1970-01-01T00:00:00Z\"}", json);
  }
}
