package dev.rota.deploy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.networknt.schema.JsonSchema;
import com.networknt.schema.JsonSchemaFactory;
import com.networknt.schema.SpecVersion;
import com.networknt.schema.ValidationMessage;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.URL;
import java.util.ArrayList;
import java.util.Enumeration;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The JSON schemas of Kubernetes API objects that fabric8's model jars ship ({@code
 * schema/validation-schema.json} in kubernetes-model-core, -apps, -rbac, -policy), merged, and made
 * strict the way {@code kubeconform -strict} is: an object with declared properties accepts no
 * other (a misspelt field fails), and the draft-3 {@code "required": true} on a property becomes
 * the draft-4 {@code required} list. Quantities and int-or-string values take their YAML forms.
 */
final class KubernetesSchemas {
  private static final String RESOURCE = "schema/validation-schema.json";
  private static final JsonNodeFactory NODES = JsonNodeFactory.instance;

  private final ObjectNode definitions = NODES.objectNode();

  /** "apiVersion/kind" → definition name. */
  private final Map<String, String> byKind = new HashMap<>();

  private final Map<String, JsonSchema> schemas = new HashMap<>();
  private final JsonSchemaFactory factory =
      JsonSchemaFactory.getInstance(SpecVersion.VersionFlag.V4);

  KubernetesSchemas() {
    ObjectMapper json = new ObjectMapper();
    try {
      Enumeration<URL> files = getClass().getClassLoader().getResources(RESOURCE);
      while (files.hasMoreElements()) {
        try (InputStream in = files.nextElement().openStream()) {
          JsonNode schema = json.readTree(in);
          schema
              .path("definitions")
              .fields()
              .forEachRemaining(e -> definitions.set(e.getKey(), e.getValue()));
        }
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    if (definitions.isEmpty()) {
      throw new IllegalStateException("no " + RESOURCE + " on the class path (fabric8 model jars)");
    }
    List<String> names = new ArrayList<>();
    definitions.fieldNames().forEachRemaining(names::add);
    for (String name : names) {
      JsonNode definition = definitions.get(name);
      if (name.endsWith("_Quantity")) {
        definitions.set(name, typeOf("string", "number"));
      } else if (name.endsWith("_IntOrString")) {
        definitions.set(name, typeOf("string", "integer"));
      } else {
        strict(definition);
        String apiVersion =
            definition.path("properties").path("apiVersion").path("default").asText(null);
        String kind = definition.path("properties").path("kind").path("default").asText(null);
        if (apiVersion != null && kind != null && !kind.endsWith("List")) {
          byKind.put(apiVersion + "/" + kind, name);
        }
      }
    }
  }

  /** Whether the schemas know this kind at all. */
  boolean knows(String apiVersion, String kind) {
    return byKind.containsKey(apiVersion + "/" + kind);
  }

  /** The problems of one manifest document; empty when it is valid. */
  Set<ValidationMessage> validate(JsonNode document) {
    String key = document.path("apiVersion").asText() + "/" + document.path("kind").asText();
    String name = byKind.get(key);
    if (name == null) {
      throw new IllegalArgumentException("no schema for " + key);
    }
    JsonSchema schema =
        schemas.computeIfAbsent(
            name,
            n -> {
              ObjectNode root = NODES.objectNode();
              root.put("$ref", "#/definitions/" + n);
              root.set("definitions", definitions);
              return factory.getSchema(root);
            });
    return schema.validate(document);
  }

  private static ObjectNode typeOf(String... types) {
    ObjectNode node = NODES.objectNode();
    ArrayNode list = node.putArray("type");
    for (String type : types) {
      list.add(type);
    }
    return node;
  }

  /** Strict objects, draft-4 required lists and no fabric8 code-generation keys, recursively. */
  private static void strict(JsonNode node) {
    if (node instanceof ArrayNode array) {
      array.forEach(KubernetesSchemas::strict);
      return;
    }
    if (!(node instanceof ObjectNode object)) {
      return;
    }
    for (Iterator<String> keys = object.fieldNames(); keys.hasNext(); ) {
      String key = keys.next();
      if (key.startsWith("java") || key.equals("existingJavaType")) {
        keys.remove();
      }
    }
    JsonNode properties = object.get("properties");
    if (properties instanceof ObjectNode props) {
      ArrayNode required = NODES.arrayNode();
      props
          .fields()
          .forEachRemaining(
              e -> {
                if (e.getValue() instanceof ObjectNode property && property.has("required")) {
                  if (property.get("required").asBoolean()) {
                    required.add(e.getKey());
                  }
                  property.remove("required");
                }
              });
      if (!required.isEmpty()) {
        object.set("required", required);
      }
      if (object.path("additionalProperties").isBoolean()) {
        object.put("additionalProperties", false);
      }
    }
    object.elements().forEachRemaining(KubernetesSchemas::strict);
  }
}
