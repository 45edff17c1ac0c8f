package dev.rota.http;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.rota.cluster.metrics.RotaMetrics;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ThreadLocalRandom;
import java.util.function.Supplier;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.pekko.http.javadsl.model.ContentTypes;
import org.apache.pekko.http.javadsl.model.HttpEntity;
import org.apache.pekko.http.javadsl.model.HttpRequest;
import org.apache.pekko.http.javadsl.model.HttpResponse;
import org.apache.pekko.http.javadsl.model.headers.RawHeader;
import org.apache.pekko.http.javadsl.server.AllDirectives;
import org.apache.pekko.http.javadsl.server.Route;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What every request leaves behind, around the whole API: a correlation id (the client's {@code
 * X-Correlation-Id} when it sends a sane one, a fresh one otherwise) answered in the same header
 * and added to error bodies as {@code correlationId}; one access-log line ({@code
 * dev.rota.http.access}) with method, path (lease ids redacted), status, duration and that id; and
 * the {@code rota_http_requests} timer by method, route and status. The route is the path template
 * of openapi.yaml ({@code /v1/agents/{agentId}}), {@code other} for paths it does not know, so the
 * number of series stays bounded whatever clients send.
 */
public final class RequestTelemetry extends AllDirectives {
  /** The request and response header that carries the correlation id. */
  public static final String HEADER = "X-Correlation-Id";

  private static final Logger access = LoggerFactory.getLogger("dev.rota.http.access");
  private static final Pattern SANE_ID = Pattern.compile("[A-Za-z0-9._:-]{1,64}");
  private static final Pattern PATH_LINE = Pattern.compile("(?m)^  (/[^:\\s]*):\\s*$");
  private static final Pattern LEASE_SEGMENT = Pattern.compile("(/v1/leases/)[^/\\s?#\"']+");

  private final RotaMetrics metrics;
  private final Map<Pattern, String> templates;
  private final Map<String, String> literals;

  public RequestTelemetry(RotaMetrics metrics) {
    this.metrics = metrics;
    this.templates = templates(new String(OpenApiRoutes.load(), StandardCharsets.UTF_8));
    // Literal paths (most requests: /v1/claims, /v1/agents) by one lookup, not a scan of patterns.
    this.literals = new HashMap<>();
    templates.values().stream().filter(t -> !t.contains("{")).forEach(t -> literals.put(t, t));
  }

  /** {@code inner} with correlation id, access log and request metrics. */
  public Route wrap(Supplier<Route> inner) {
    return extractRequest(
        request -> {
          long start = System.nanoTime();
          String id = correlationId(request);
          return respondWithHeader(
              RawHeader.create(HEADER, id),
              () -> mapResponse(response -> observed(request, id, start, response), inner));
        });
  }

  private HttpResponse observed(HttpRequest request, String id, long start, HttpResponse response) {
    long nanos = System.nanoTime() - start;
    String method = request.method().name();
    String rawPath = request.getUri().path();
    String path = loggable(rawPath);
    int status = response.status().intValue();
    metrics.httpRequest(method, route(rawPath), status, nanos);
    access
        .atInfo()
        .addKeyValue("correlationId", id)
        .addKeyValue("method", method)
        .addKeyValue("path", path)
        .addKeyValue("status", status)
        .addKeyValue("durationMs", nanos / 1_000_000)
        .log("{} {} {} {} ms [{}]", method, path, status, nanos / 1_000_000, id);
    return status >= 400 ? withCorrelationId(response, id) : response;
  }

  /** An error body of the API's shape gains {@code correlationId}; anything else is untouched. */
  static HttpResponse withCorrelationId(HttpResponse response, String id) {
    if (!(response.entity() instanceof HttpEntity.Strict strict)
        || !strict.getContentType().equals(ContentTypes.APPLICATION_JSON)) {
      return response;
    }
    try {
      JsonNode body = JsonSupport.mapper().readTree(strict.getData().toArray());
      if (!(body instanceof ObjectNode error)
          || !error.has("error")
          || error.has("correlationId")) {
        return response;
      }
      error.put("correlationId", id);
      return response.withEntity(
          ContentTypes.APPLICATION_JSON, JsonSupport.mapper().writeValueAsBytes(error));
    } catch (IOException e) {
      return response;
    }
  }

  private static String correlationId(HttpRequest request) {
    return request
        .getHeader(HEADER)
        .map(h -> h.value())
        .filter(v -> SANE_ID.matcher(v).matches())
        .orElseGet(() -> Long.toHexString(ThreadLocalRandom.current().nextLong() | Long.MIN_VALUE));
  }

  /**
   * The path (or any text quoting one) as logs may show it: a lease id is its runner's secret (it
   * lets whoever also knows the runner id report in the runner's name), so its segment is replaced.
   */
  public static String loggable(String path) {
    return LEASE_SEGMENT.matcher(path).replaceAll("$1{redacted}");
  }

  /** The openapi.yaml template {@code path} matches, or {@code other}. */
  String route(String path) {
    String literal = literals.get(path);
    if (literal != null) {
      return literal;
    }
    for (Map.Entry<Pattern, String> t : templates.entrySet()) {
      if (t.getKey().matcher(path).matches()) {
        return t.getValue();
      }
    }
    return "other";
  }

  /** The path templates of the document's {@code paths}, literal ones first. */
  static Map<Pattern, String> templates(String openApiYaml) {
    List<String> literal = new ArrayList<>();
    List<String> templated = new ArrayList<>();
    Matcher m = PATH_LINE.matcher(openApiYaml);
    while (m.find()) {
      (m.group(1).contains("{") ? templated : literal).add(m.group(1));
    }
    Map<Pattern, String> patterns = new LinkedHashMap<>();
    for (String template : literal) {
      patterns.put(Pattern.compile(Pattern.quote(template)), template);
    }
    for (String template : templated) {
      StringBuilder regex = new StringBuilder();
      for (String part : template.split("(?=\\{)|(?<=\\})")) {
        regex.append(part.startsWith("{") ? "[^/]+" : Pattern.quote(part));
      }
      patterns.put(Pattern.compile(regex.toString()), template);
    }
    return patterns;
  }
}
