package dev.rota.http;

import static org.apache.pekko.http.javadsl.server.Directives.extractMaterializer;
import static org.apache.pekko.http.javadsl.server.Directives.extractRequestEntity;
import static org.apache.pekko.http.javadsl.server.Directives.onSuccess;
import static org.apache.pekko.http.javadsl.server.Directives.withSizeLimit;

import com.fasterxml.jackson.core.JacksonException;
import com.fasterxml.jackson.core.JsonLocation;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.StreamReadFeature;
import com.fasterxml.jackson.core.exc.InputCoercionException;
import com.fasterxml.jackson.core.exc.StreamReadException;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonMappingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.MapperFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.cfg.CoercionAction;
import com.fasterxml.jackson.databind.cfg.CoercionInputShape;
import com.fasterxml.jackson.databind.exc.MismatchedInputException;
import com.fasterxml.jackson.databind.exc.UnrecognizedPropertyException;
import com.fasterxml.jackson.databind.json.JsonMapper;
import com.fasterxml.jackson.databind.type.LogicalType;
import com.fasterxml.jackson.datatype.jsr310.JavaTimeModule;
import dev.rota.core.model.TextRules;
import java.time.Duration;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;
import java.util.function.Function;
import org.apache.pekko.http.javadsl.model.ContentTypes;
import org.apache.pekko.http.javadsl.model.HttpHeader;
import org.apache.pekko.http.javadsl.model.HttpResponse;
import org.apache.pekko.http.javadsl.model.StatusCode;
import org.apache.pekko.http.javadsl.server.Route;

/**
 * JSON in and out of the HTTP API. One strict {@link ObjectMapper}: unknown fields, wrong types (no
 * {@code "5"} for 5, no 1.5 for an integer, no number for a string), duplicate keys and trailing
 * data are all rejected, and every Jackson failure becomes a 400 whose message names the field. The
 * request's Content-Type is not checked, so {@code curl -d} works. Responses are written as {@code
 * application/json} whatever the client accepts, so a client always gets the body the contract
 * promises.
 */
public final class JsonSupport {
  /** Reading a body this slowly is a client problem; the server's request timeout is shorter. */
  private static final Duration BODY_READ_TIMEOUT = Duration.ofSeconds(30);

  private static final ObjectMapper MAPPER =
      JsonMapper.builder()
          .addModule(new JavaTimeModule())
          .enable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES)
          .enable(DeserializationFeature.FAIL_ON_TRAILING_TOKENS)
          .enable(DeserializationFeature.FAIL_ON_NULL_FOR_PRIMITIVES)
          .disable(DeserializationFeature.ACCEPT_FLOAT_AS_INT)
          .disable(MapperFeature.ALLOW_COERCION_OF_SCALARS)
          .enable(StreamReadFeature.STRICT_DUPLICATE_DETECTION)
          .disable(SerializationFeature.WRITE_DATES_AS_TIMESTAMPS)
          .withCoercionConfig(
              LogicalType.Textual,
              c ->
                  c.setCoercion(CoercionInputShape.Integer, CoercionAction.Fail)
                      .setCoercion(CoercionInputShape.Float, CoercionAction.Fail)
                      .setCoercion(CoercionInputShape.Boolean, CoercionAction.Fail))
          .withCoercionConfig(
              LogicalType.Integer,
              c ->
                  c.setCoercion(CoercionInputShape.String, CoercionAction.Fail)
                      .setCoercion(CoercionInputShape.EmptyString, CoercionAction.Fail))
          .build();

  private static final byte[] EMPTY_OBJECT = {'{', '}'};

  private JsonSupport() {}

  /** The mapper for anything else that writes the API's JSON (e.g. server-sent events). */
  public static ObjectMapper mapper() {
    return MAPPER;
  }

  /** A response with this status and body as JSON. */
  public static HttpResponse response(StatusCode status, Object body) {
    return response(status, body, List.of());
  }

  public static HttpResponse response(StatusCode status, Object body, List<HttpHeader> headers) {
    return HttpResponse.create()
        .withStatus(status)
        .addHeaders(headers)
        .withEntity(ContentTypes.APPLICATION_JSON, write(body));
  }

  /** The JSON bytes of a response record. */
  public static byte[] write(Object body) {
    try {
      return MAPPER.writeValueAsBytes(body);
    } catch (JsonProcessingException e) {
      throw new IllegalStateException("cannot write " + body.getClass().getSimpleName(), e);
    }
  }

  /**
   * Reads the request body, at most {@code maxBytes} of it, as {@code type}; an empty body reads as
   * {@code {}}. Too large a body fails with Pekko's {@code EntityStreamSizeException} (413 in
   * {@link ApiErrors}); a body that does not fit the type fails with a 400 {@link ApiException}.
   */
  public static <T> Route body(Class<T> type, long maxBytes, Function<T, Route> inner) {
    return withSizeLimit(
        maxBytes,
        () ->
            extractRequestEntity(
                entity ->
                    extractMaterializer(
                        mat ->
                            onSuccess(
                                entity.toStrict(BODY_READ_TIMEOUT.toMillis(), mat),
                                strict -> inner.apply(parse(strict.getData().toArray(), type))))));
  }

  /**
   * Parses a JSON body into {@code type}; failures are 400s that name the field. Every string in
   * the body, keys included and at any depth, is checked against {@link TextRules} first: this is
   * the one place where a request's text is refused before it can reach an agent, the journal or
   * the read model.
   */
  public static <T> T parse(byte[] body, Class<T> type) {
    if (isBlank(body)) {
      body = EMPTY_OBJECT;
    }
    T value;
    try {
      JsonNode tree = MAPPER.readTree(body);
      if (tree == null || tree.isMissingNode() || tree.isNull()) {
        throw ApiException.invalid("the body must be a JSON object, not null");
      }
      TextRules.firstViolation(tree, "", TextRules.Kind.NAME)
          .ifPresent(
              violation -> {
                throw ApiException.invalid(violation.message());
              });
      value = MAPPER.treeToValue(tree, type);
    } catch (JacksonException e) {
      throw ApiException.invalid(describe(e));
    } catch (java.io.IOException e) {
      throw ApiException.invalid("the body cannot be read: " + e.getMessage());
    }
    if (value == null) {
      throw ApiException.invalid("the body must be a JSON object, not null");
    }
    return value;
  }

  private static boolean isBlank(byte[] body) {
    for (byte b : body) {
      if (!Character.isWhitespace(b)) {
        return false;
      }
    }
    return true;
  }

  /** A sentence for the client that says what is wrong and where. */
  static String describe(JacksonException e) {
    String field = e instanceof JsonMappingException m ? pathOf(m.getPath()) : "";
    Throwable cause = rootJacksonCause(e);
    if (cause instanceof InputCoercionException coercion) {
      return "field '" + field + "' is out of range: it must be " + expected(coercion);
    }
    if (cause instanceof StreamReadException read && !(read instanceof InputCoercionException)) {
      return "the body is not valid JSON"
          + at(read.getLocation())
          + ": "
          + read.getOriginalMessage();
    }
    if (e instanceof UnrecognizedPropertyException u) {
      return "unknown field '" + field + "'" + known(u.getKnownPropertyIds());
    }
    if (e instanceof MismatchedInputException m) {
      if (field.isEmpty()) {
        return "the body must be " + expected(m.getTargetType());
      }
      return "field '" + field + "' must be " + expected(m.getTargetType());
    }
    return field.isEmpty()
        ? "the body is invalid: " + e.getOriginalMessage()
        : "field '" + field + "' is invalid: " + e.getOriginalMessage();
  }

  private static Throwable rootJacksonCause(Throwable e) {
    Throwable cause = e;
    while (cause.getCause() instanceof JacksonException next && next != cause) {
      cause = next;
    }
    return cause;
  }

  private static String pathOf(List<JsonMappingException.Reference> path) {
    StringBuilder sb = new StringBuilder();
    for (JsonMappingException.Reference ref : path) {
      if (ref.getFieldName() != null) {
        if (!sb.isEmpty()) {
          sb.append('.');
        }
        sb.append(ref.getFieldName());
      } else if (ref.getIndex() >= 0) {
        sb.append('[').append(ref.getIndex()).append(']');
      }
    }
    return sb.toString();
  }

  private static String at(JsonLocation location) {
    if (location == null || location.getLineNr() < 0) {
      return "";
    }
    return " at line " + location.getLineNr() + ", column " + location.getColumnNr();
  }

  private static String known(Collection<Object> ids) {
    if (ids == null || ids.isEmpty()) {
      return "";
    }
    TreeSet<String> names = new TreeSet<>();
    ids.forEach(id -> names.add(String.valueOf(id)));
    return " (known fields: " + String.join(", ", names) + ")";
  }

  private static String expected(InputCoercionException e) {
    Class<?> target = e.getTargetType();
    if (target == Integer.class || target == Integer.TYPE) {
      return "an integer between " + Integer.MIN_VALUE + " and " + Integer.MAX_VALUE;
    }
    if (target == Long.class || target == Long.TYPE) {
      return "an integer between " + Long.MIN_VALUE + " and " + Long.MAX_VALUE;
    }
    return expected(target);
  }

  private static String expected(Class<?> target) {
    if (target == null) {
      return "of another type";
    }
    if (target == String.class) {
      return "a string";
    }
    if (target == Integer.class
        || target == Integer.TYPE
        || target == Long.class
        || target == Long.TYPE) {
      return "an integer";
    }
    if (target == Boolean.class || target == Boolean.TYPE) {
      return "true or false";
    }
    if (Number.class.isAssignableFrom(target)) {
      return "a number";
    }
    if (Collection.class.isAssignableFrom(target) || target.isArray()) {
      return "an array";
    }
    if (JsonNode.class.isAssignableFrom(target)) {
      return "JSON";
    }
    if (Map.class.isAssignableFrom(target) || target.isRecord()) {
      return "a JSON object";
    }
    return "of another type";
  }
}
