package dev.rota.deploy;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.MappingIterator;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import com.networknt.schema.ValidationMessage;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** deploy/kubernetes/*.yaml against Kubernetes' schemas, and what the deployment must carry. */
class KubernetesManifestsTest {
  static final Path MANIFESTS = Path.of("../../deploy/kubernetes");
  private static final ObjectMapper YAML = new ObjectMapper(new YAMLFactory());
  private static KubernetesSchemas schemas;

  @BeforeAll
  static void loadSchemas() {
    schemas = new KubernetesSchemas();
  }

  static List<JsonNode> documents(Path file) throws IOException {
    List<JsonNode> documents = new ArrayList<>();
    try (MappingIterator<JsonNode> it = YAML.readerFor(JsonNode.class).readValues(file.toFile())) {
      while (it.hasNext()) {
        JsonNode document = it.next();
        if (document != null && !document.isNull() && !document.isEmpty()) {
          documents.add(document);
        }
      }
    }
    return documents;
  }

  static List<Path> manifests() throws IOException {
    try (Stream<Path> files = Files.list(MANIFESTS)) {
      return files.filter(f -> f.toString().endsWith(".yaml")).sorted().toList();
    }
  }

  @Test
  void everyDocumentOfEveryManifestMatchesItsKubernetesSchema() throws IOException {
    List<Path> files = manifests();
    assertTrue(
        files.size() >= 2, "manifests found in " + MANIFESTS.toAbsolutePath() + ": " + files);
    List<String> problems = new ArrayList<>();
    int checked = 0;
    for (Path file : files) {
      for (JsonNode document : documents(file)) {
        String what =
            file.getFileName()
                + " "
                + document.path("kind").asText()
                + " "
                + document.path("metadata").path("name").asText();
        if (!schemas.knows(document.path("apiVersion").asText(), document.path("kind").asText())) {
          problems.add(what + ": no schema for " + document.path("apiVersion").asText());
          continue;
        }
        Set<ValidationMessage> messages = schemas.validate(document);
        messages.forEach(m -> problems.add(what + ": " + m.getMessage()));
        checked++;
      }
    }
    assertEquals(List.of(), problems);
    assertTrue(checked >= 7, checked + " documents checked");
  }

  @Test
  void aMisspeltFieldOrAWrongTypeFailsValidation() throws IOException {
    ObjectNode deployment = rotaDeployment().deepCopy();
    ObjectNode container = (ObjectNode) deployment.at("/spec/template/spec/containers/0");
    ((ObjectNode) container.get("securityContext")).put("readOnlyRootFileSystem", true);
    assertFalse(schemas.validate(deployment).isEmpty(), "a misspelt field is refused");

    ObjectNode wrongType = rotaDeployment().deepCopy();
    ((ObjectNode) wrongType.get("spec")).put("replicas", "three");
    assertFalse(schemas.validate(wrongType).isEmpty(), "a string for an integer is refused");
  }

  @Test
  void theNodeStartsSafelyLeavesGracefullyAndTakesItsSecretsFromSecrets() throws IOException {
    JsonNode pod = rotaDeployment().at("/spec/template/spec");
    JsonNode container = pod.at("/containers/0");

    assertEquals("/alive", container.at("/startupProbe/httpGet/path").asText());
    assertTrue(pod.at("/securityContext/runAsNonRoot").asBoolean());
    assertTrue(container.at("/securityContext/readOnlyRootFilesystem").asBoolean());
    assertFalse(container.at("/securityContext/allowPrivilegeEscalation").asBoolean(true));
    assertTrue(container.at("/lifecycle/preStop").isObject());
    assertTrue(container.at("/resources/requests/memory").isTextual());
    assertTrue(
        env(container, "JAVA_TOOL_OPTIONS")
            .path("value")
            .asText()
            .contains("-XX:MaxRAMPercentage="));

    for (String secret : List.of("ROTA_DB_URL", "ROTA_DB_USER", "ROTA_DB_PASSWORD")) {
      assertEquals(
          "rota-db", env(container, secret).at("/valueFrom/secretKeyRef/name").asText(), secret);
    }
    String tokensFile = env(container, "ROTA_API_TOKENS_FILE").path("value").asText();
    JsonNode mount = named(container.path("volumeMounts"), "api-tokens");
    assertTrue(tokensFile.startsWith(mount.path("mountPath").asText() + "/"), tokensFile);
    assertEquals(
        "rota-api-tokens",
        named(pod.path("volumes"), "api-tokens").at("/secret/secretName").asText());
  }

  @Test
  void secretVolumesAskForOwnerReadOnly() throws IOException {
    JsonNode pod =
        documents(MANIFESTS.resolve("rota.yaml")).stream()
            .filter(
                d ->
                    d.path("kind").asText().equals("StatefulSet")
                        || d.path("kind").asText().equals("Deployment"))
            .findFirst()
            .orElseThrow()
            .at("/spec/template/spec");
    // Read as written: a YAML 1.1 reader takes 0400 as octal, a YAML 1.2 one as decimal.
    List<String> modes =
        Files.readAllLines(MANIFESTS.resolve("rota.yaml")).stream()
            .map(String::strip)
            .filter(l -> l.startsWith("defaultMode:"))
            .toList();
    long secretVolumes = 0;
    for (JsonNode volume : pod.path("volumes")) {
      if (volume.has("secret")) {
        secretVolumes++;
      }
    }
    assertEquals(secretVolumes, modes.size(), modes.toString());
    assertTrue(secretVolumes >= 3, "tokens, cluster TLS, database CA");
    for (String mode : modes) {
      assertEquals("defaultMode: 0400", mode, "no group or other read");
    }
  }

  @Test
  void theAutoscalerScalesTheRunnerExampleOnThePoolScalersMetric() throws IOException {
    JsonNode hpa = documents(MANIFESTS.resolve("runner-autoscaler.yaml")).get(0);
    JsonNode runner = documents(MANIFESTS.resolve("runner-example.yaml")).get(0);
    assertEquals("HorizontalPodAutoscaler", hpa.path("kind").asText());
    assertEquals("autoscaling/v2", hpa.path("apiVersion").asText());
    JsonNode target = hpa.path("spec").path("scaleTargetRef");
    assertEquals(runner.path("kind").asText(), target.path("kind").asText());
    assertEquals(runner.path("apiVersion").asText(), target.path("apiVersion").asText());
    assertEquals(runner.path("metadata").path("name").asText(), target.path("name").asText());
    JsonNode metric = hpa.path("spec").path("metrics").get(0).path("external");
    // The gauge MetricsSampler registers as rota.pool.desired.runners, in Prometheus' spelling.
    assertEquals("rota_pool_desired_runners", metric.path("metric").path("name").asText());
    assertFalse(
        metric.path("metric").path("selector").path("matchLabels").path("pool").asText().isEmpty());
    // One pod runs ROTA_RUNNER_SLOTS runners: the average per pod is that many desired runners.
    String slots = null;
    for (JsonNode env :
        runner.path("spec").path("template").path("spec").path("containers").get(0).path("env")) {
      if (env.path("name").asText().equals("ROTA_RUNNER_SLOTS")) {
        slots = env.path("value").asText();
      }
    }
    assertEquals(slots, metric.path("target").path("averageValue").asText());
  }

  @Test
  void theRunnerExampleTakesItsTokenFromASecretAndRunsUnprivileged() throws IOException {
    JsonNode runner = documents(MANIFESTS.resolve("runner-example.yaml")).get(0);
    JsonNode container = runner.at("/spec/template/spec/containers/0");
    assertEquals(
        "rota-runner-token",
        env(container, "ROTA_TOKEN").at("/valueFrom/secretKeyRef/name").asText());
    assertTrue(runner.at("/spec/template/spec/securityContext/runAsNonRoot").asBoolean());
    assertTrue(container.at("/securityContext/readOnlyRootFilesystem").asBoolean());
  }

  /**
   * The cluster ports take no token: only Rota's own pods may reach Artery (25520) and management
   * (8558); others (runners, producers) reach the API port 8080 only.
   */
  @Test
  void aNetworkPolicyLetsOnlyRotaPodsReachTheClusterPorts() throws IOException {
    JsonNode policy =
        documents(MANIFESTS.resolve("rota.yaml")).stream()
            .filter(d -> d.path("kind").asText().equals("NetworkPolicy"))
            .findFirst()
            .orElseThrow(() -> new AssertionError("no NetworkPolicy in rota.yaml"));
    assertEquals("rota", policy.at("/spec/podSelector/matchLabels/app").asText());
    assertTrue(policy.at("/spec/policyTypes").toString().contains("Ingress"));
    JsonNode rules = policy.at("/spec/ingress");
    assertTrue(rules.size() >= 1, rules.toString());
    boolean runnersReachApi = false;
    for (JsonNode rule : rules) {
      List<Integer> ports = new ArrayList<>();
      rule.path("ports").forEach(p -> ports.add(p.path("port").asInt()));
      assertFalse(ports.isEmpty(), "a rule without ports opens every port: " + rule);
      boolean onlyRota = true;
      for (JsonNode from : rule.path("from")) {
        onlyRota &=
            from.path("namespaceSelector").isMissingNode()
                && from.path("ipBlock").isMissingNode()
                && "rota".equals(from.at("/podSelector/matchLabels/app").asText());
        runnersReachApi |=
            "rota-runner".equals(from.at("/podSelector/matchLabels/app").asText())
                && ports.contains(8080);
      }
      assertFalse(rule.path("from").isEmpty(), "a rule without from admits everyone: " + rule);
      if (ports.contains(25520) || ports.contains(8558)) {
        assertTrue(onlyRota, "the cluster ports for others than Rota's pods: " + rule);
      }
    }
    assertTrue(runnersReachApi, "runners (app=rota-runner) reach the API: " + rules);
    // The runners' pods carry the label the policy admits.
    JsonNode runner = documents(MANIFESTS.resolve("runner-example.yaml")).get(0);
    assertEquals("rota-runner", runner.at("/spec/template/metadata/labels/app").asText());
  }

  @Test
  void theNodesTalkTlsWithKeysFromASecretAndVerifyTheDatabaseServer() throws IOException {
    JsonNode pod = rotaDeployment().at("/spec/template/spec");
    JsonNode container = pod.at("/containers/0");
    assertEquals("on", env(container, "ROTA_CLUSTER_TLS").path("value").asText());
    assertEquals(
        "rota-cluster-tls",
        env(container, "ROTA_CLUSTER_TLS_PASSWORD").at("/valueFrom/secretKeyRef/name").asText());
    JsonNode mount = named(container.path("volumeMounts"), "cluster-tls");
    for (String store : List.of("ROTA_CLUSTER_TLS_KEY_STORE", "ROTA_CLUSTER_TLS_TRUST_STORE")) {
      assertTrue(
          env(container, store)
              .path("value")
              .asText()
              .startsWith(mount.path("mountPath").asText() + "/"),
          store);
    }
    assertEquals(
        "rota-cluster-tls",
        named(pod.path("volumes"), "cluster-tls").at("/secret/secretName").asText());
    // The database example verifies the server's certificate and name.
    for (Path doc : List.of(MANIFESTS.resolve("rota.yaml"), MANIFESTS.resolve("../README.md"))) {
      String text = Files.readString(doc);
      assertTrue(text.contains("sslmode=verify-full"), doc + " has no sslmode=verify-full");
      assertFalse(
          text.contains("jdbc:postgresql://postgres:5432/rota\n")
              || text.contains("jdbc:postgresql://postgres:5432/rota \\"),
          doc + " still shows a database URL without TLS");
    }
  }

  private static JsonNode rotaDeployment() throws IOException {
    return documents(MANIFESTS.resolve("rota.yaml")).stream()
        .filter(d -> d.path("kind").asText().equals("Deployment"))
        .findFirst()
        .orElseThrow(() -> new AssertionError("no Deployment in rota.yaml"));
  }

  private static JsonNode env(JsonNode container, String name) {
    return named(container.path("env"), name);
  }

  private static JsonNode named(JsonNode list, String name) {
    for (JsonNode item : list) {
      if (name.equals(item.path("name").asText())) {
        return item;
      }
    }
    throw new AssertionError("no " + name + " in " + list);
  }
}
