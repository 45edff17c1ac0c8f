package dev.rota.core.model;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.Iterator;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * What a string may hold to be stored and sent on by Rota. The journal writes events as CBOR, which
 * cannot encode an unpaired UTF-16 surrogate; PostgreSQL text columns cannot hold NUL; and control
 * characters in names, ids and types break logs, listings and the tools that read them. So every
 * string a request carries is checked once, at the edge, by these rules, and the entity checks them
 * again before it persists anything (an event it cannot write would stop it).
 *
 * <p>Two kinds of string: {@link Kind#NAME} (ids, names, types, keys, capabilities) may hold no
 * control character at all; {@link Kind#TEXT} (payload and metadata values, results, error texts)
 * may also hold tab, CR and LF.
 */
public final class TextRules {

  /** Which characters besides printable ones a string may hold. */
  public enum Kind {
    /** No control characters. */
    NAME,
    /** Tab, carriage return and line feed allowed; no other control characters. */
    TEXT
  }

  /** A string that breaks a rule: where it is (a field path) and what is wrong with it. */
  public record Violation(String field, String problem) {
    /** One sentence for the client, naming the field. */
    public String message() {
      return "field '" + field + "' " + problem;
    }
  }

  /**
   * Fields whose values are free JSON text wherever they appear: their string values (not their
   * keys) follow {@link Kind#TEXT}.
   */
  public static final Set<String> FREE_TEXT_FIELDS =
      Set.of("payload", "metadata", "result", "error");

  private TextRules() {}

  /** What is wrong with {@code value} as a string of this kind, or empty when it is fine. */
  public static Optional<String> problem(String value, Kind kind) {
    if (value == null) {
      return Optional.empty();
    }
    int n = value.length();
    for (int i = 0; i < n; i++) {
      char c = value.charAt(i);
      if (Character.isHighSurrogate(c)) {
        if (i + 1 < n && Character.isLowSurrogate(value.charAt(i + 1))) {
          i++;
          continue;
        }
        return Optional.of("contains an unpaired UTF-16 surrogate at index " + i);
      }
      if (Character.isLowSurrogate(c)) {
        return Optional.of("contains an unpaired UTF-16 surrogate at index " + i);
      }
      if (c == 0) {
        return Optional.of("contains a NUL character at index " + i);
      }
      if (isControl(c) && !(kind == Kind.TEXT && (c == '\t' || c == '\n' || c == '\r'))) {
        return Optional.of(
            "contains the control character U+"
                + String.format("%04X", (int) c)
                + " at index "
                + i);
      }
    }
    return Optional.empty();
  }

  /** The rule broken by a string of a field, or empty. */
  public static Optional<Violation> check(String field, String value, Kind kind) {
    return problem(value, kind).map(p -> new Violation(field, p));
  }

  /**
   * The first string in a JSON tree (keys and values, at any depth) that breaks the rules, named by
   * its path from {@code path}. Keys are {@link Kind#NAME}; values are {@code valueKind}, or {@link
   * Kind#TEXT} below a field named in {@link #FREE_TEXT_FIELDS}.
   */
  public static Optional<Violation> firstViolation(JsonNode node, String path, Kind valueKind) {
    if (node == null) {
      return Optional.empty();
    }
    if (node.isTextual()) {
      return check(path, node.textValue(), valueKind);
    }
    if (node.isArray()) {
      for (int i = 0; i < node.size(); i++) {
        Optional<Violation> v = firstViolation(node.get(i), path + "[" + i + "]", valueKind);
        if (v.isPresent()) {
          return v;
        }
      }
      return Optional.empty();
    }
    if (node.isObject()) {
      Iterator<Map.Entry<String, JsonNode>> fields = node.fields();
      while (fields.hasNext()) {
        Map.Entry<String, JsonNode> field = fields.next();
        String key = printable(field.getKey());
        String fieldPath = path.isEmpty() ? key : path + "." + key;
        Optional<Violation> badKey =
            problem(field.getKey(), Kind.NAME)
                .map(p -> new Violation(fieldPath, "is a key that " + p));
        if (badKey.isPresent()) {
          return badKey;
        }
        Kind kind = FREE_TEXT_FIELDS.contains(field.getKey()) ? Kind.TEXT : valueKind;
        Optional<Violation> v = firstViolation(field.getValue(), fieldPath, kind);
        if (v.isPresent()) {
          return v;
        }
      }
    }
    return Optional.empty();
  }

  /**
   * The string with every control character and surrogate written as a backslash-u escape, so that
   * it can be quoted in a message, a log line or a JSON answer whatever it holds.
   */
  public static String printable(String value) {
    StringBuilder sb = null;
    for (int i = 0; i < value.length(); i++) {
      char c = value.charAt(i);
      boolean escape = isControl(c) || Character.isSurrogate(c);
      if (escape && sb == null) {
        sb = new StringBuilder(value.length() + 16).append(value, 0, i);
      }
      if (sb != null) {
        if (escape) {
          sb.append(String.format("\\u%04X", (int) c));
        } else {
          sb.append(c);
        }
      }
    }
    return sb == null ? value : sb.toString();
  }

  private static boolean isControl(char c) {
    return c < 0x20 || (c >= 0x7f && c <= 0x9f);
  }
}
