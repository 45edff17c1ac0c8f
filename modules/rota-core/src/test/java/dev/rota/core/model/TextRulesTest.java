package dev.rota.core.model;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.rota.core.model.TextRules.Kind;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class TextRulesTest {
  private static final ObjectMapper JSON = new ObjectMapper();

  @Test
  void acceptsPrintableTextAndPairedSurrogates() {
    assertEquals(Optional.empty(), TextRules.problem("claude-code-1 ✓", Kind.NAME));
    assertEquals(Optional.empty(), TextRules.problem("emoji \uD83D\uDE00 ok", Kind.NAME));
    assertEquals(Optional.empty(), TextRules.problem(null, Kind.NAME));
  }

  @Test
  void refusesUnpairedSurrogatesNulAndControlCharacters() {
    assertTrue(TextRules.problem("a\uD800", Kind.TEXT).orElseThrow().contains("surrogate"));
    assertTrue(TextRules.problem("\uDC00a", Kind.TEXT).orElseThrow().contains("surrogate"));
    assertTrue(TextRules.problem("a\uD800b", Kind.TEXT).orElseThrow().contains("index 1"));
    assertTrue(TextRules.problem("a\u0000", Kind.TEXT).orElseThrow().contains("NUL"));
    assertTrue(TextRules.problem("a\u0007", Kind.TEXT).orElseThrow().contains("U+0007"));
    assertTrue(TextRules.problem("a\u0085", Kind.TEXT).orElseThrow().contains("U+0085"));
    assertTrue(TextRules.problem("a\u007f", Kind.NAME).isPresent());
  }

  @Test
  void textMayHoldTabsAndLineBreaksNamesMayNot() {
    assertEquals(Optional.empty(), TextRules.problem("a\tb\r\nc", Kind.TEXT));
    assertTrue(TextRules.problem("a\nb", Kind.NAME).isPresent());
    assertTrue(TextRules.problem("a\tb", Kind.NAME).isPresent());
  }

  @Test
  void findsTheFirstBadStringInATreeAndNamesItsPath() throws Exception {
    JsonNode body =
        JSON.readTree(
            "{\"type\": \"m\", \"payload\": {\"list\": [1, {\"t\": \"ok\\n\"}, \"x\\u0000\"]}}");
    TextRules.Violation v = TextRules.firstViolation(body, "", Kind.NAME).orElseThrow();
    assertEquals("payload.list[2]", v.field());
    assertTrue(v.message().startsWith("field 'payload.list[2]' contains a NUL"), v.message());
  }

  @Test
  void keysAreNamesEvenInsidePayloads() throws Exception {
    JsonNode body = JSON.readTree("{\"payload\": {\"a\\nb\": 1}}");
    TextRules.Violation v = TextRules.firstViolation(body, "", Kind.NAME).orElseThrow();
    assertEquals("payload.a\\u000Ab", v.field());
    assertTrue(v.message().contains("is a key that"), v.message());
  }

  @Test
  void namesOutsideFreeTextFieldsMayNotBreakLines() throws Exception {
    assertTrue(
        TextRules.firstViolation(JSON.readTree("{\"type\": \"a\\nb\"}"), "", Kind.NAME)
            .isPresent());
    assertEquals(
        Optional.empty(),
        TextRules.firstViolation(JSON.readTree("{\"error\": \"a\\nb\"}"), "", Kind.NAME));
  }

  @Test
  void printableEscapesWhatCannotBeQuoted() {
    assertEquals("a\\u0000b\\uD800", TextRules.printable("a\u0000b\uD800"));
    assertEquals("plain", TextRules.printable("plain"));
  }
}
