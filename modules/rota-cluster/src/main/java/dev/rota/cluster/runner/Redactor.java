package dev.rota.cluster.runner;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.databind.node.TextNode;
import com.typesafe.config.Config;
import com.typesafe.config.ConfigValue;
import com.typesafe.config.ConfigValueType;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.Iterator;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.regex.Pattern;

/**
 * Removes the node's configured secrets from what executors hand back, before it is recorded in an
 * agent's history or a log: the API tokens ({@code rota.http.tokens}, {@code tokens-list}, {@code
 * tokens-file}), the database password ({@code rota.db.password}), the cluster's TLS store
 * passwords ({@code rota.cluster.tls.password}, Artery's), webhook header values ({@code
 * rota.runners.http.headers} and pools' executor-settings) and the values of process environment
 * variables whose name says they are secret (containing TOKEN, SECRET, PASSWORD, KEY or
 * CREDENTIAL), given in {@code rota.runners.process.env} or passed with {@code pass-env}. Each
 * occurrence becomes {@value #MARK}. Values shorter than {@value #MIN_LENGTH} characters are not
 * searched for (they would mangle ordinary text).
 */
public final class Redactor {
  public static final String MARK = "[redacted]";
  static final int MIN_LENGTH = 4;
  private static final Pattern SECRET_NAME =
      Pattern.compile("(?i).*(TOKEN|SECRET|PASSW|KEY|CREDENTIAL).*");
  private static final Pattern LIST_SEPARATOR = Pattern.compile("[\\s;]+");

  private final List<String> secrets;

  Redactor(Set<String> secrets) {
    List<String> kept = new ArrayList<>();
    for (String s : secrets) {
      if (s != null && s.strip().length() >= MIN_LENGTH) {
        kept.add(s);
      }
    }
    // Longest first, so a secret containing another is replaced whole.
    kept.sort(Comparator.comparingInt(String::length).reversed());
    this.secrets = List.copyOf(kept);
  }

  /** The secrets configured in a node's whole configuration. */
  public static Redactor from(Config root) {
    Set<String> secrets = new LinkedHashSet<>();
    if (root.hasPath("rota.http.tokens")) {
      for (Config entry : root.getConfigList("rota.http.tokens")) {
        if (entry.hasPath("token")) {
          secrets.add(entry.getString("token"));
        }
      }
    }
    if (root.hasPath("rota.http.tokens-list")) {
      secrets.addAll(tokensOf(root.getString("rota.http.tokens-list")));
    }
    if (root.hasPath("rota.http.tokens-file")) {
      String file = root.getString("rota.http.tokens-file");
      if (!file.isBlank()) {
        try {
          for (String line : Files.readAllLines(Path.of(file))) {
            int hash = line.indexOf('#');
            secrets.addAll(tokensOf(hash < 0 ? line : line.substring(0, hash)));
          }
        } catch (IOException | RuntimeException e) {
          // The HTTP layer refuses to start on an unreadable file; nothing to redact from it here.
        }
      }
    }
    for (String key :
        List.of(
            "rota.db.password",
            "rota.cluster.tls.password",
            "pekko.remote.artery.ssl.config-ssl-engine.key-store-password",
            "pekko.remote.artery.ssl.config-ssl-engine.key-password",
            "pekko.remote.artery.ssl.config-ssl-engine.trust-store-password")) {
      if (root.hasPath(key) && !"changeme".equals(root.getString(key))) {
        secrets.add(root.getString(key));
      }
    }
    if (root.hasPath("rota.runners.http.headers")) {
      secrets.addAll(values(root.getConfig("rota.runners.http.headers")));
    }
    if (root.hasPath("rota.runners.http")) {
      secrets.addAll(tenantHeaders(root.getConfig("rota.runners.http")));
    }
    if (root.hasPath("rota.runners.process")) {
      secrets.addAll(secretEnv(root.getConfig("rota.runners.process")));
    }
    if (root.hasPath("rota.runners.pools")) {
      for (Config pool : root.getConfigList("rota.runners.pools")) {
        if (pool.hasPath("executor-settings.headers")) {
          secrets.addAll(values(pool.getConfig("executor-settings.headers")));
        }
        if (pool.hasPath("executor-settings")) {
          secrets.addAll(secretEnv(pool.getConfig("executor-settings")));
          secrets.addAll(tenantHeaders(pool.getConfig("executor-settings")));
        }
      }
    }
    return new Redactor(secrets);
  }

  /** The header values of every tenant's webhook targets ({@code tenant-targets.<t>.headers}). */
  private static List<String> tenantHeaders(Config http) {
    List<String> out = new ArrayList<>();
    if (http.hasPath("tenant-targets")) {
      Config tenants = http.getConfig("tenant-targets");
      for (String tenant : http.getObject("tenant-targets").keySet()) {
        String key = com.typesafe.config.ConfigUtil.joinPath(tenant, "headers");
        if (tenants.hasPath(key)) {
          out.addAll(values(tenants.getConfig(key)));
        }
      }
    }
    return out;
  }

  /** The values of {@code env} entries and {@code pass-env} variables whose name looks secret. */
  static Set<String> secretEnv(Config process) {
    Set<String> out = new LinkedHashSet<>();
    if (process.hasPath("env")) {
      process
          .getObject("env")
          .unwrapped()
          .forEach(
              (name, value) -> {
                if (SECRET_NAME.matcher(name).matches() && value != null) {
                  out.add(String.valueOf(value));
                }
              });
    }
    if (process.hasPath("pass-env")) {
      for (String name : process.getStringList("pass-env")) {
        String value = System.getenv(name);
        if (SECRET_NAME.matcher(name).matches() && value != null) {
          out.add(value);
        }
      }
    }
    return out;
  }

  private static List<String> tokensOf(String list) {
    List<String> out = new ArrayList<>();
    for (String entry : LIST_SEPARATOR.split(list.strip())) {
      int colon = entry.lastIndexOf(':');
      String token = colon < 0 ? entry : entry.substring(0, colon);
      if (!token.isBlank()) {
        out.add(token);
      }
    }
    return out;
  }

  private static List<String> values(Config config) {
    List<String> out = new ArrayList<>();
    for (Map.Entry<String, ConfigValue> e : config.entrySet()) {
      if (e.getValue().valueType() != ConfigValueType.NULL) {
        out.add(String.valueOf(e.getValue().unwrapped()));
      }
    }
    return out;
  }

  public boolean isEmpty() {
    return secrets.isEmpty();
  }

  /** The text with every configured secret replaced by {@value #MARK}. */
  public String redact(String text) {
    if (text == null || secrets.isEmpty()) {
      return text;
    }
    String out = text;
    for (String secret : secrets) {
      if (out.contains(secret)) {
        out = out.replace(secret, MARK);
      }
    }
    return out;
  }

  /** The outcome with every string in it (error, result values and field names) redacted. */
  public Outcome redact(Outcome outcome) {
    if (secrets.isEmpty() || outcome == null) {
      return outcome;
    }
    if (outcome instanceof Outcome.Failed f) {
      return new Outcome.Failed(f.action(), redact(f.error()), f.snoozeSeconds());
    }
    Outcome.Completed c = (Outcome.Completed) outcome;
    return new Outcome.Completed(redact(c.result()));
  }

  JsonNode redact(JsonNode node) {
    if (node == null) {
      return null;
    }
    if (node.isTextual()) {
      String text = node.textValue();
      String cleaned = redact(text);
      return cleaned.equals(text) ? node : TextNode.valueOf(cleaned);
    }
    if (node.isArray()) {
      ArrayNode out = JsonNodeFactory.instance.arrayNode();
      node.forEach(element -> out.add(redact(element)));
      return out;
    }
    if (node.isObject()) {
      ObjectNode out = JsonNodeFactory.instance.objectNode();
      for (Iterator<Map.Entry<String, JsonNode>> it = node.fields(); it.hasNext(); ) {
        var e = it.next();
        out.set(redact(e.getKey()), redact(e.getValue()));
      }
      return out;
    }
    return node;
  }

  /**
   * The executor whose outcomes are redacted; the executor itself when there is nothing to redact.
   * Cancelling the returned stage cancels the executor's, so a given-up run is still stopped.
   */
  public Executor wrap(Executor executor) {
    if (secrets.isEmpty()) {
      return executor;
    }
    return new Executor() {
      @Override
      public java.util.concurrent.CompletionStage<Outcome> execute(Activation activation) {
        CompletableFuture<Outcome> inner = executor.execute(activation).toCompletableFuture();
        CompletableFuture<Outcome> outer = new CompletableFuture<>();
        inner.whenComplete(
            (outcome, failure) -> {
              if (failure != null) {
                outer.complete(Outcome.retry(redact("executor failed: " + failure)));
              } else {
                outer.complete(redact(outcome));
              }
            });
        outer.whenComplete(
            (outcome, failure) -> {
              if (outer.isCancelled()) {
                inner.cancel(true);
              }
            });
        return outer;
      }

      @Override
      public void reported(Activation activation, Outcome outcome) {
        executor.reported(activation, outcome);
      }

      @Override
      public String toString() {
        return executor.toString();
      }
    };
  }
}
