package dev.rota.server.fuzz;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.rota.server.testing.RawHttp;
import dev.rota.server.testing.RawHttp.Response;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Tuple;

/**
 * Drives every route (docs/api.md) on a running node with generated requests, the way a careless or
 * hostile client would: hostile strings (NUL, control characters, lone surrogates, very long) in
 * every field and key, numbers out of every range and of every type, unknown fields, broken JSON,
 * bad ids and request targets, wrong and unknown methods, odd headers, mixed with valid requests so
 * that agents, leases and dead letters exist to be hit. Every answer is checked by {@link
 * FuzzOracle}. Generation uses jqwik's combinators and samples them outside a property, so each
 * problem is reported with the request that caused it, whole.
 */
public final class HttpFuzzer {
  /** The valid agent ids the fuzzer reuses, so that requests meet the agents others created. */
  public static final int POOL = 16;

  private static final ObjectMapper JSON = new ObjectMapper();
  private final int port;
  private static final List<String> RUNNER_IDS = List.of("r1", "r2", "r3");

  private final List<String> leaseIds = new ArrayList<>();
  private final List<String> deadLetterIds = new ArrayList<>();

  /** One generated request. */
  public record Request(String method, String target, Map<String, String> headers, byte[] body) {
    @Override
    public String toString() {
      String text = body == null ? "" : new String(body, StandardCharsets.UTF_8);
      return method + " " + target + " " + headers + " " + abbreviate(text);
    }
  }

  /** What a run sent and what it found. */
  public record Report(
      long requests,
      Map<Integer, Long> byStatus,
      List<String> problems,
      Map<String, Long> byRoute) {
    public long serverErrors() {
      return byStatus.entrySet().stream()
          .filter(e -> e.getKey() >= 500)
          .mapToLong(Map.Entry::getValue)
          .sum();
    }
  }

  /** The tokens requests carry in turn (none: a node without tokens), and the settling token. */
  private final List<String> tokens;

  private final String settleToken;

  /** Text no answer may hold: another tenant's data, which these tokens must never see. */
  private final String secret;

  private final java.util.Random random = new java.util.Random();

  public HttpFuzzer(int port) {
    this(port, List.of(), null, null);
  }

  /**
   * A fuzzer whose requests carry {@code tokens} in turn (unless a case sends its own {@code
   * Authorization}), half of them naming a tenant ({@code ?tenant=}); an answer holding {@code
   * secret} is a leak. {@code settleToken} may complete every lease afterwards.
   */
  public HttpFuzzer(int port, List<String> tokens, String settleToken, String secret) {
    this.port = port;
    this.tokens = List.copyOf(tokens);
    this.settleToken = settleToken;
    this.secret = secret;
  }

  /** A generated request as a token holder sends it: its token, and maybe a tenant to work in. */
  private Request scoped(Request request) {
    if (tokens.isEmpty()) {
      return request;
    }
    Map<String, String> headers = new LinkedHashMap<>(request.headers());
    headers.putIfAbsent("Authorization", "Bearer " + tokens.get(random.nextInt(tokens.size())));
    String target = request.target();
    if (random.nextBoolean()) {
      String tenant = TENANTS.get(random.nextInt(TENANTS.size()));
      target += (target.contains("?") ? "&" : "?") + "tenant=" + tenant;
    }
    return new Request(request.method(), target, headers, request.body());
  }

  /** What a scoped run names: tenants of the node, unknown ones, and names that are no names. */
  private static final List<String> TENANTS =
      List.of("acme", "beta", "default", "nosuch", "ACME", "a%00b", "", "x".repeat(65));

  public static String poolAgent(int i) {
    return "fz-" + i;
  }

  /** Sends generated requests for {@code budget}; never more than {@code maxRequests}. */
  public Report run(Duration budget, long maxRequests) {
    long deadline = System.nanoTime() + budget.toNanos();
    Map<Integer, Long> byStatus = new TreeMap<>();
    Map<String, Long> byRoute = new TreeMap<>();
    List<String> problems = new ArrayList<>();
    long sent = 0;
    while (System.nanoTime() < deadline && sent < maxRequests) {
      Tuple.Tuple2<String, Request> generated = next(request());
      Request request = scoped(generated.get2());
      Response response;
      try {
        response =
            RawHttp.send(
                port, request.method(), request.target(), request.headers(), request.body());
      } catch (RuntimeException e) {
        problems.add("no answer to " + request + ": " + e.getMessage());
        sent++;
        continue;
      }
      sent++;
      byStatus.merge(response.status(), 1L, Long::sum);
      byRoute.merge(generated.get1(), 1L, Long::sum);
      if (secret != null && response.text().contains(secret)) {
        problems.add(
            "leak: the answer holds another tenant's data — for "
                + request
                + " — answer "
                + abbreviate(response.text()));
      }
      FuzzOracle.problem(request.method(), response)
          .ifPresent(
              p ->
                  problems.add(
                      p + " — for " + request + " — answer " + abbreviate(response.text())));
      remember(response);
    }
    return new Report(sent, byStatus, problems, byRoute);
  }

  /**
   * Completes every lease the run was granted (so no agent waits for an expiry), resumes, and lifts
   * any cap the run set on the default tenant, the pool agents' tenant (a valid request may set one
   * as low as one activation a minute, which leaves the agents waiting, rightly).
   */
  public void settle() {
    send("POST", "/admin/resume", null);
    send("PUT", "/admin/tenants/default", "{}");
    for (String leaseId : leaseIds) {
      // The claims' runner ids are not remembered: whichever of them is not the holder gets 409.
      for (String runnerId : RUNNER_IDS) {
        String body = "{\"runnerId\": \"" + runnerId + "\"}";
        send("POST", "/v1/leases/" + leaseId + "/complete", body);
      }
    }
    // A claim with a hostile but valid runner id holds its lease for a runner of no list:
    // /admin/runners names every holder with its lease.
    try {
      JsonNode runners = JSON.readTree(send("GET", "/admin/runners", null).body()).path("runners");
      for (JsonNode runner : runners) {
        if (runner.path("leaseId").isTextual()) {
          String body =
              JSON.createObjectNode().put("runnerId", runner.path("runnerId").asText()).toString();
          send("POST", "/v1/leases/" + runner.path("leaseId").asText() + "/complete", body);
        }
      }
    } catch (java.io.IOException e) {
      throw new IllegalStateException("reading /admin/runners after the run failed", e);
    }
  }

  /** A request of the settling phase, with the settling token when there is one. */
  private Response send(String method, String target, String jsonBody) {
    Map<String, String> headers = new LinkedHashMap<>();
    if (jsonBody != null) {
      headers.put("Content-Type", "application/json");
    }
    if (settleToken != null) {
      headers.put("Authorization", "Bearer " + settleToken);
    }
    return RawHttp.send(
        port,
        method,
        target,
        headers,
        jsonBody == null ? null : jsonBody.getBytes(StandardCharsets.UTF_8));
  }

  private void remember(Response response) {
    if (response.status() != 200 || response.body().length == 0) {
      return;
    }
    try {
      JsonNode body = JSON.readTree(response.body());
      JsonNode lease = body.at("/assignment/leaseId");
      if (lease.isTextual()) {
        leaseIds.add(lease.asText());
      }
      JsonNode dead = body.get("deadLetters");
      if (dead != null && dead.isArray()) {
        dead.forEach(d -> deadLetterIds.add(d.path("id").asText()));
      }
    } catch (Exception e) {
      // not JSON: the oracle has judged it already
    }
  }

  private <T> T next(Arbitrary<T> arbitrary) {
    return arbitrary.sample();
  }

  // ---- requests ----

  private Arbitrary<Tuple.Tuple2<String, Request>> request() {
    return Arbitraries.frequencyOf(
        Tuple.of(8, route("agents.put", agentPath(""), "PUT", registerBody())),
        Tuple.of(6, route("agents.get", agentPath(""), "GET", noBody())),
        Tuple.of(2, route("agents.delete", agentPath(""), "DELETE", noBody())),
        Tuple.of(
            10, route("notifications", agentPath("/notifications"), "POST", notificationBody())),
        Tuple.of(2, route("agents.pause", agentPath("/pause"), "POST", noBody())),
        Tuple.of(2, route("agents.resume", agentPath("/resume"), "POST", noBody())),
        Tuple.of(2, route("agents.history", historyPath(), "GET", noBody())),
        Tuple.of(3, route("agents.list", listPath(), "GET", noBody())),
        Tuple.of(8, route("claims", Arbitraries.just("/v1/claims"), "POST", claimBody())),
        Tuple.of(3, route("leases.heartbeat", leasePath("/heartbeat"), "POST", heartbeatBody())),
        Tuple.of(4, route("leases.complete", leasePath("/complete"), "POST", completeBody())),
        Tuple.of(4, route("leases.fail", leasePath("/fail"), "POST", failBody())),
        Tuple.of(2, route("leases.input", leasePath("/input"), "POST", inputBody())),
        Tuple.of(1, route("admin.tenants", tenantPath(), "GET", noBody())),
        Tuple.of(1, route("admin.tenants.put", tenantPath(), "PUT", tenantBody())),
        Tuple.of(1, route("admin.tenants.delete", tenantPath(), "DELETE", noBody())),
        Tuple.of(2, route("admin.stats", Arbitraries.just("/admin/stats"), "GET", noBody())),
        Tuple.of(1, route("admin.runners", Arbitraries.just("/admin/runners"), "GET", noBody())),
        Tuple.of(2, route("admin.dead-letters", deadLettersPath(), "GET", noBody())),
        Tuple.of(2, route("admin.redrive", deadLetterPath("/redrive"), "POST", noBody())),
        Tuple.of(1, route("admin.discard", deadLetterPath(""), "DELETE", noBody())),
        Tuple.of(1, route("admin.pause", Arbitraries.just("/admin/pause"), "POST", noBody())),
        Tuple.of(3, route("admin.resume", Arbitraries.just("/admin/resume"), "POST", noBody())),
        Tuple.of(1, route("metrics", Arbitraries.just("/metrics"), "GET", noBody())),
        Tuple.of(1, route("events", eventsPath(), "GET", noBody())),
        Tuple.of(2, route("unknown", unknownPath(), "GET", anyBody())));
  }

  private Arbitrary<Tuple.Tuple2<String, Request>> route(
      String name, Arbitrary<String> target, String method, Arbitrary<byte[]> body) {
    return Arbitraries.lazy(
        () ->
            net.jqwik.api.Combinators.combine(target, method(method), headers(), body)
                .as(
                    (t, m, h, b) ->
                        Tuple.of(
                            name, new Request(m, t, h, m.equals("GET") && b == null ? null : b))));
  }

  private static Arbitrary<String> method(String right) {
    return Arbitraries.frequencyOf(
        Tuple.of(18, Arbitraries.just(right)),
        Tuple.of(
            2,
            Arbitraries.of(
                "GET", "PUT", "POST", "DELETE", "PATCH", "OPTIONS", "HEAD", "FROB", "TRACE")));
  }

  /** Bodies go as JSON unless a case is about the type: 415 would hide what else it probes. */
  private static final String JSON_TYPE = "application/json";

  private static Arbitrary<Map<String, String>> headers() {
    return Arbitraries.frequencyOf(
        Tuple.of(40, Arbitraries.just(Map.of("Content-Type", JSON_TYPE))),
        Tuple.of(1, Arbitraries.just(Map.of("Content-Type", "text/xml; charset=latin1"))),
        Tuple.of(1, Arbitraries.just(Map.of("Content-Type", "text/plain;charset=UTF-8"))),
        Tuple.of(
            1,
            Arbitraries.just(Map.of("Content-Type", JSON_TYPE, "Origin", "https://evil.example"))),
        Tuple.of(
            1,
            Arbitraries.just(
                Map.of("Content-Type", JSON_TYPE, "Authorization", "Bearer \u00ff\u00fe garbage"))),
        Tuple.of(
            1,
            Arbitraries.just(
                Map.of(
                    "Content-Type",
                    JSON_TYPE,
                    "Accept",
                    "application/xml",
                    "X-Weird",
                    "a\u0001b"))),
        Tuple.of(
            1,
            Arbitraries.strings()
                .alpha()
                .ofLength(12_000)
                .map(v -> Map.of("Content-Type", JSON_TYPE, "X-Big", v))));
  }

  // ---- paths ----

  private static Arbitrary<String> agentId() {
    return Arbitraries.frequencyOf(
        Tuple.of(16, Arbitraries.integers().between(0, POOL - 1).map(HttpFuzzer::poolAgent)),
        Tuple.of(
            4,
            Arbitraries.of(
                "%00",
                "%ED%A0%80",
                "%zz",
                "a%2Fb",
                "..",
                "%20",
                "x".repeat(129),
                "x".repeat(5000),
                "caf%C3%A9",
                "a;b",
                "a%0Ab",
                "")));
  }

  private static Arbitrary<String> agentPath(String suffix) {
    return agentId().map(id -> "/v1/agents/" + id + suffix);
  }

  private static Arbitrary<String> historyPath() {
    return net.jqwik.api.Combinators.combine(agentId(), queryNumber())
        .as((id, n) -> "/v1/agents/" + id + "/history" + (n.isEmpty() ? "" : "?limit=" + n));
  }

  private static Arbitrary<String> listPath() {
    return net.jqwik.api.Combinators.combine(
            Arbitraries.of("", "stalest", "inbox", "random", "%00"),
            queryNumber(),
            Arbitraries.of("", "garbage", "%ED%A0%80", "eyJ4IjoxfQ"))
        .as(
            (order, limit, after) ->
                "/v1/agents?order="
                    + order
                    + "&limit="
                    + limit
                    + (after.isEmpty() ? "" : "&after=" + after));
  }

  private Arbitrary<String> leasePath(String suffix) {
    return Arbitraries.lazy(
        () -> {
          Arbitrary<String> garbage =
              Arbitraries.of("nope", "%00", "Zm9v.1-abc", "x".repeat(600), "Zno.%zz", "");
          Arbitrary<String> id =
              leaseIds.isEmpty()
                  ? garbage
                  : Arbitraries.frequencyOf(
                      Tuple.of(3, Arbitraries.of(List.copyOf(leaseIds))), Tuple.of(1, garbage));
          return id.map(l -> "/v1/leases/" + l + suffix);
        });
  }

  private static Arbitrary<String> deadLettersPath() {
    return net.jqwik.api.Combinators.combine(agentId(), queryNumber())
        .as((id, n) -> "/admin/dead-letters?agentId=" + id + (n.isEmpty() ? "" : "&limit=" + n));
  }

  private Arbitrary<String> deadLetterPath(String suffix) {
    return Arbitraries.lazy(
        () -> {
          Arbitrary<String> garbage = Arbitraries.of("nope", "%00", "Zm9v.abc", "x".repeat(700));
          Arbitrary<String> id =
              deadLetterIds.isEmpty()
                  ? garbage
                  : Arbitraries.frequencyOf(
                      Tuple.of(3, Arbitraries.of(List.copyOf(deadLetterIds))),
                      Tuple.of(1, garbage));
          return id.map(d -> "/admin/dead-letters/" + d + suffix);
        });
  }

  private static Arbitrary<String> eventsPath() {
    return Arbitraries.of("/v1/events", "/v1/events?agentId=fz-1", "/v1/events?types=x,%00");
  }

  private static Arbitrary<String> unknownPath() {
    return Arbitraries.of(
        "/",
        "/v2/agents",
        "/v1",
        "/admin",
        "/v1/agents/fz-1/unknown",
        "/%",
        "/v1/claims/extra",
        "//");
  }

  private static Arbitrary<String> queryNumber() {
    return Arbitraries.of(
        "", "1", "50", "1000", "0", "-1", "1001", "99999999999999", "abc", "1.5", "%00");
  }

  // ---- bodies ----

  private static Arbitrary<byte[]> noBody() {
    return Arbitraries.frequencyOf(
        Tuple.of(9, Arbitraries.just((byte[]) null)), Tuple.of(1, anyBody()));
  }

  private static Arbitrary<byte[]> anyBody() {
    return Arbitraries.oneOf(
        Arbitraries.bytes().array(byte[].class).ofMaxSize(64),
        Arbitraries.of("{", "[]", "null", "\"x\"", "{\"a\":1} trailing", "{\"a\":1,\"a\":2}")
            .map(s -> s.getBytes(StandardCharsets.UTF_8)),
        nested().map(s -> s.getBytes(StandardCharsets.UTF_8)));
  }

  /** Deep nesting, which some parsers turn into a stack overflow. */
  private static Arbitrary<String> nested() {
    return Arbitraries.integers()
        .between(100, 3000)
        .map(n -> "{\"payload\":" + "[".repeat(n) + "]".repeat(n) + ",\"type\":\"t\"}");
  }

  /**
   * A body of these fields: a third of the time every field valid (so that agents, leases and dead
   * letters come to exist), otherwise each field valid, hostile or absent, sometimes with a hostile
   * extra key; now and then not a JSON object at all.
   */
  private static Arbitrary<byte[]> body(Map<String, Arbitrary<Object>> fields) {
    return Arbitraries.frequencyOf(
        Tuple.of(5, object(fields, 0)), Tuple.of(9, object(fields, 2)), Tuple.of(1, anyBody()));
  }

  private static Arbitrary<byte[]> object(Map<String, Arbitrary<Object>> fields, int hostility) {
    return Arbitraries.lazy(
        () -> {
          List<Arbitrary<Tuple.Tuple2<String, Object>>> parts = new ArrayList<>();
          fields.forEach(
              (name, value) -> {
                Arbitrary<Tuple.Tuple2<String, Object>> valid = value.map(v -> Tuple.of(name, v));
                Arbitrary<Tuple.Tuple2<String, Object>> absent =
                    Arbitraries.just(Tuple.of(name, (Object) Absent.INSTANCE));
                parts.add(
                    hostility == 0
                        ? Arbitraries.frequencyOf(Tuple.of(8, valid), Tuple.of(1, absent))
                        : Arbitraries.frequencyOf(
                            Tuple.of(8, valid),
                            Tuple.of(hostility, hostileValue().map(v -> Tuple.of(name, v))),
                            Tuple.of(1, absent)));
              });
          if (hostility > 0) {
            parts.add(
                Arbitraries.frequencyOf(
                    Tuple.of(9, Arbitraries.just(Tuple.of("", (Object) Absent.INSTANCE))),
                    Tuple.of(1, hostileString().map(k -> Tuple.of(k, (Object) 1)))));
          }
          return net.jqwik.api.Combinators.combine(parts)
              .as(
                  list -> {
                    Map<String, Object> map = new LinkedHashMap<>();
                    for (Tuple.Tuple2<String, Object> t : list) {
                      if (t.get2() != Absent.INSTANCE) {
                        map.put(t.get1(), t.get2());
                      }
                    }
                    return JsonText.write(map).getBytes(StandardCharsets.UTF_8);
                  });
        });
  }

  private enum Absent {
    INSTANCE
  }

  private static Arbitrary<byte[]> registerBody() {
    Map<String, Arbitrary<Object>> f = new LinkedHashMap<>();
    f.put("name", Arbitraries.strings().alpha().ofMinLength(1).ofMaxLength(20).map(o -> o));
    f.put(
        "capabilities",
        Arbitraries.of(List.of(), List.of("code"), List.of("web", "code")).map(o -> o));
    f.put("priority", Arbitraries.integers().between(-1000, 1000).map(o -> o));
    f.put("minActivationIntervalSeconds", Arbitraries.of(0, 1, 60).map(o -> o));
    f.put("maxInboxDepth", Arbitraries.integers().between(1, 200).map(o -> o));
    f.put("maxAttempts", Arbitraries.integers().between(1, 5).map(o -> o));
    f.put("metadata", jsonValue(2).map(v -> (Object) Map.of("m", v)));
    return body(f);
  }

  private static Arbitrary<byte[]> notificationBody() {
    Map<String, Arbitrary<Object>> f = new LinkedHashMap<>();
    f.put("type", Arbitraries.of("mention", "reply", "t").map(o -> o));
    f.put("payload", jsonValue(3));
    f.put("dedupeKey", Arbitraries.strings().alpha().ofMinLength(1).ofMaxLength(6).map(o -> o));
    return body(f);
  }

  private static Arbitrary<byte[]> claimBody() {
    Map<String, Arbitrary<Object>> f = new LinkedHashMap<>();
    f.put("runnerId", runnerId());
    f.put("mode", Arbitraries.of("notification", "exploration", "hybrid").map(o -> o));
    f.put(
        "capabilities",
        Arbitraries.of(List.of(), List.of("code"), List.of("web", "code")).map(o -> o));
    f.put("waitSeconds", Arbitraries.of(0, 0, 0, 1).map(o -> o));
    f.put("leaseSeconds", Arbitraries.of(5, 30, 300).map(o -> o));
    return body(f);
  }

  /** The claims' runner ids, so a lease report is sometimes by its holder and sometimes not. */
  private static Arbitrary<Object> runnerId() {
    return Arbitraries.of(RUNNER_IDS).map(o -> o);
  }

  private static Arbitrary<byte[]> heartbeatBody() {
    Map<String, Arbitrary<Object>> f = new LinkedHashMap<>();
    f.put("runnerId", runnerId());
    return body(f);
  }

  /** A turn's input poll: a short wait, so that a valid one does not hold the fuzzer up. */
  private static Arbitrary<byte[]> inputBody() {
    Map<String, Arbitrary<Object>> f = new LinkedHashMap<>();
    f.put("runnerId", runnerId());
    f.put("waitSeconds", Arbitraries.integers().between(0, 1).map(o -> o));
    return body(f);
  }

  private static Arbitrary<String> tenantPath() {
    return Arbitraries.of(
        "/admin/tenants",
        "/admin/tenants/acme",
        "/admin/tenants/fz-t",
        "/admin/tenants/default",
        "/admin/tenants/BAD",
        "/admin/tenants/a%00b",
        "/admin/tenants/" + "x".repeat(65));
  }

  private static Arbitrary<byte[]> tenantBody() {
    Map<String, Arbitrary<Object>> f = new LinkedHashMap<>();
    f.put("weight", Arbitraries.integers().between(1, 5).map(o -> o));
    f.put("maxConcurrent", Arbitraries.integers().between(1, 5).map(o -> o));
    f.put("maxActivationsPerMinute", Arbitraries.integers().between(1, 600).map(o -> o));
    return body(f);
  }

  private static Arbitrary<byte[]> completeBody() {
    Map<String, Arbitrary<Object>> f = new LinkedHashMap<>();
    f.put("runnerId", runnerId());
    f.put("result", jsonValue(2).map(v -> (Object) Map.of("r", v)));
    return body(f);
  }

  private static Arbitrary<byte[]> failBody() {
    Map<String, Arbitrary<Object>> f = new LinkedHashMap<>();
    f.put("runnerId", runnerId());
    f.put("error", Arbitraries.strings().alpha().ofMaxLength(30).map(o -> o));
    f.put("action", Arbitraries.of("retry", "cancel", "discard", "snooze").map(o -> o));
    f.put("snoozeSeconds", Arbitraries.of(0, 1, 60).map(o -> o));
    return body(f);
  }

  // ---- values ----

  /** Any JSON value to {@code depth}, hostile strings and keys included. */
  private static Arbitrary<Object> jsonValue(int depth) {
    Arbitrary<Object> leaf =
        Arbitraries.oneOf(
            hostileString().map(o -> o),
            hostileNumber(),
            Arbitraries.of(true, false).map(o -> o),
            Arbitraries.just(JsonText.NULL));
    if (depth == 0) {
      return leaf;
    }
    return Arbitraries.frequencyOf(
        Tuple.of(4, leaf),
        Tuple.of(1, jsonValue(depth - 1).list().ofMaxSize(4).map(o -> (Object) o)),
        Tuple.of(
            1,
            Arbitraries.maps(hostileString(), jsonValue(depth - 1))
                .ofMaxSize(4)
                .map(o -> (Object) o)));
  }

  private static Arbitrary<Object> hostileValue() {
    return Arbitraries.oneOf(hostileString().map(o -> o), hostileNumber(), jsonValue(1));
  }

  private static Arbitrary<String> hostileString() {
    return Arbitraries.frequencyOf(
        Tuple.of(4, Arbitraries.strings().alpha().numeric().ofMaxLength(12)),
        Tuple.of(
            3,
            Arbitraries.of(
                "\ud800",
                "a\u0000b",
                "\u0007bell",
                "line\nbreak",
                "tab\there",
                "\udc00x",
                "\u0085",
                "",
                " ",
                "\uffff",
                "\ud83d\ude00",
                "DROP TABLE agent_schedule;",
                "%s%n",
                "\\")),
        Tuple.of(
            1,
            Arbitraries.strings().withCharRange('\u0000', '\u001f').ofMinLength(1).ofMaxLength(4)),
        Tuple.of(
            1,
            Arbitraries.strings().withCharRange('\ud800', '\udfff').ofMinLength(1).ofMaxLength(3)),
        Tuple.of(1, Arbitraries.strings().all().ofMaxLength(16)),
        Tuple.of(1, Arbitraries.strings().alpha().ofMinLength(250).ofMaxLength(5000)));
  }

  private static Arbitrary<Object> hostileNumber() {
    return Arbitraries.oneOf(
        Arbitraries.integers().between(-3, 3).map(o -> o),
        Arbitraries.of(
                -1L, 31_536_000L, 2_592_001L, Long.MAX_VALUE, Long.MIN_VALUE, 2_147_483_648L, 1001L)
            .map(o -> o),
        Arbitraries.of(1.5, -0.0, 1e300).map(o -> o),
        Arbitraries.just(new java.math.BigInteger("9".repeat(40))).map(o -> o));
  }

  private static String abbreviate(String s) {
    return s.length() <= 300 ? s : s.substring(0, 300) + "…(" + s.length() + " chars)";
  }
}
