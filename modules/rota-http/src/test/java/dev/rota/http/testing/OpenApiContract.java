package dev.rota.http.testing;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import com.networknt.schema.JsonSchema;
import com.networknt.schema.JsonSchemaFactory;
import com.networknt.schema.SchemaLocation;
import com.networknt.schema.SchemaValidatorsConfig;
import com.networknt.schema.SpecVersion;
import com.networknt.schema.ValidationMessage;
import com.networknt.schema.oas.OpenApi31;
import dev.rota.http.OpenApiRoutes;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.regex.Pattern;

/**
 * The OpenAPI document the node serves ({@code openapi.yaml}) as a checker of real answers: finds
 * the operation of a method and path, the response of a status (or {@code default}), and validates
 * the body against its schema with a JSON Schema 2020-12 validator in the OpenAPI 3.1 dialect
 * (networknt). Every answer of the route tests goes through {@link #check}, so an answer the
 * document does not describe fails the test that received it.
 */
public final class OpenApiContract {
  private static final ObjectMapper YAML = new ObjectMapper(new YAMLFactory());
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final String LOCATION = "classpath:" + OpenApiRoutes.RESOURCE;
  private static final OpenApiContract INSTANCE = new OpenApiContract();

  /** Statuses the HTTP layer answers before any route: the error shape, on any path. */
  private static final Set<Integer> ANY_PATH = Set.of(404, 405, 413, 414, 431, 500, 503);

  private final JsonNode document;
  private final Map<Pattern, String> templates = new LinkedHashMap<>();
  private final JsonSchemaFactory factory;
  private final SchemaValidatorsConfig config;
  private final Map<String, JsonSchema> schemas = new ConcurrentHashMap<>();

  private OpenApiContract() {
    try {
      document = YAML.readTree(OpenApiRoutes.load());
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    document
        .get("paths")
        .fieldNames()
        .forEachRemaining(template -> templates.put(pattern(template), template));
    factory =
        JsonSchemaFactory.getInstance(
            SpecVersion.VersionFlag.V202012,
            builder ->
                builder
                    .metaSchema(OpenApi31.getInstance())
                    .defaultMetaSchemaIri(OpenApi31.getInstance().getIri()));
    config = SchemaValidatorsConfig.builder().formatAssertionsEnabled(true).build();
  }

  public static OpenApiContract get() {
    return INSTANCE;
  }

  public JsonNode document() {
    return document;
  }

  /** One answer as a client saw it. */
  public record Answer(
      String method,
      String path,
      int status,
      String mediaType,
      Map<String, String> headers,
      String body) {}

  /**
   * What is wrong with {@code answer} according to the document; empty when it conforms.
   *
   * @param answer {@code body} null when it was not read (a stream)
   */
  public List<String> problems(Answer answer) {
    List<String> problems = new ArrayList<>();
    String where = answer.method() + " " + answer.path() + " → " + answer.status();
    Optional<String> template = template(answer.path());
    String method = answer.method().toLowerCase(Locale.ROOT);
    JsonNode operation = template.map(t -> document.get("paths").get(t).get(method)).orElse(null);
    String responsePointer;
    if (operation == null) {
      if (!ANY_PATH.contains(answer.status())) {
        problems.add(
            where + ": " + (template.isEmpty() ? "path" : "method") + " not in openapi.yaml");
        return problems;
      }
      if (answer.status() == 405 && !answer.headers().containsKey("allow")) {
        problems.add(where + ": 405 without an Allow header");
      }
      responsePointer = "/components/responses/Error";
    } else {
      String status = String.valueOf(answer.status());
      String base = "/paths/" + escape(template.get()) + "/" + method + "/responses/";
      if (document.at(base + status).isMissingNode()) {
        if (document.at(base + "default").isMissingNode()) {
          problems.add(where + ": status not documented for this operation");
          return problems;
        }
        status = "default";
      }
      responsePointer = resolve(base + status);
    }
    JsonNode response = document.at(responsePointer);
    JsonNode headers = response.path("headers");
    headers
        .fieldNames()
        .forEachRemaining(
            name -> {
              if (name.equals("Retry-After")
                  && !answer.headers().containsKey(name.toLowerCase(Locale.ROOT))) {
                problems.add(where + ": header " + name + " missing");
              }
            });
    JsonNode content = response.path("content");
    if (content.isMissingNode()) {
      if (answer.body() != null && !answer.body().isEmpty()) {
        problems.add(where + ": a body where the document has none: " + answer.body());
      }
      return problems;
    }
    if (!content.has(answer.mediaType())) {
      problems.add(
          where
              + ": media type "
              + answer.mediaType()
              + " not among "
              + iterable(content.fieldNames()));
      return problems;
    }
    if (!answer.mediaType().equals("application/json") || answer.body() == null) {
      return problems;
    }
    JsonNode body;
    try {
      body = JSON.readTree(answer.body());
    } catch (IOException e) {
      problems.add(where + ": body is not JSON: " + answer.body());
      return problems;
    }
    String schemaPointer = responsePointer + "/content/application~1json/schema";
    for (ValidationMessage message : schema(schemaPointer).validate(body)) {
      problems.add(where + ": " + message.getMessage() + " in " + answer.body());
    }
    return problems;
  }

  /**
   * Validates {@code value} against a schema of the document, e.g. {@code
   * #/components/schemas/Event}.
   */
  public Set<ValidationMessage> validate(String pointer, JsonNode value) {
    return schema(pointer).validate(value);
  }

  private JsonSchema schema(String pointer) {
    return schemas.computeIfAbsent(
        pointer, p -> factory.getSchema(SchemaLocation.of(LOCATION + "#" + p), config));
  }

  /** Follows a response's {@code $ref} to its component. */
  private String resolve(String pointer) {
    JsonNode node = document.at(pointer);
    if (node.has("$ref")) {
      return node.get("$ref").asText().substring(1);
    }
    return pointer;
  }

  private Optional<String> template(String path) {
    if (templates.containsValue(path)) {
      return Optional.of(path);
    }
    return templates.entrySet().stream()
        .filter(e -> e.getKey().matcher(path).matches())
        .map(Map.Entry::getValue)
        .findFirst();
  }

  private static Pattern pattern(String template) {
    StringBuilder regex = new StringBuilder();
    for (String part : template.split("(?=\\{)|(?<=\\})")) {
      regex.append(part.startsWith("{") ? "[^/]+" : Pattern.quote(part));
    }
    return Pattern.compile(regex.toString());
  }

  private static String escape(String template) {
    return template.replace("~", "~0").replace("/", "~1");
  }

  private static List<String> iterable(Iterator<String> names) {
    List<String> list = new ArrayList<>();
    names.forEachRemaining(list::add);
    return list;
  }
}
