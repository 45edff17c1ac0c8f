package dev.rota.http;

import com.typesafe.config.Config;
import com.typesafe.config.ConfigException;
import com.typesafe.config.ConfigValueType;
import java.io.IOException;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.EnumSet;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The {@code rota.http.*} settings, read once per node. Tokens come from three places, merged: the
 * config list {@code rota.http.tokens}, the text {@code rota.http.tokens-list} ({@code
 * ROTA_API_TOKENS}) and the file {@code rota.http.tokens-file} ({@code ROTA_API_TOKENS_FILE}, e.g.
 * a mounted Kubernetes Secret). The text and the file hold entries {@code <token>:<role>[,<role>]}
 * separated by whitespace, newlines or {@code ;}; {@code #} starts a comment in the file. A config
 * entry may also scope its token: {@code tenants} (the tenants it works in) and {@code runnerIds}
 * (the runner ids it may act as). A malformed token list, or an entry with a key the node does not
 * know, fails start-up rather than silently leaving the API open: a scoped token on a node that
 * ignored its scope would get everything.
 *
 * @param askTimeout how long a request waits for an agent before it is answered 503
 * @param maxBodyBytes largest accepted request body; larger ones are answered 413
 * @param retryAfterSeconds the Retry-After of 429 and 503 answers
 * @param tokens bearer token → what it may do; empty means every request is allowed
 * @param allowAnonymous whether the API may serve without tokens on a non-loopback interface
 * @param maxLongPolls the most claims waiting for work at once on this node; more are answered 503
 * @param maxLongPollsPerToken the most of them one token may hold (when tokens are configured), so
 *     one runner token cannot take every waiting slot of a node
 * @param allowedOrigins browser origins ({@code scheme://host[:port]}) besides the node's own whose
 *     requests are served (see {@link CrossSiteGuard})
 */
public record HttpSettings(
    Duration askTimeout,
    long maxBodyBytes,
    int retryAfterSeconds,
    Map<String, Caller> tokens,
    boolean allowAnonymous,
    int maxLongPolls,
    Set<String> allowedOrigins,
    int maxLongPollsPerToken) {

  public HttpSettings {
    if (askTimeout.isNegative() || askTimeout.isZero()) {
      throw new IllegalArgumentException("rota.http.ask-timeout must be positive");
    }
    if (maxBodyBytes <= 0) {
      throw new IllegalArgumentException("rota.http.max-body-bytes must be positive");
    }
    if (retryAfterSeconds < 0) {
      throw new IllegalArgumentException("rota.http.retry-after-seconds must not be negative");
    }
    if (maxLongPolls < 1) {
      throw new IllegalArgumentException("rota.http.max-long-polls must be at least 1");
    }
    if (maxLongPollsPerToken < 1) {
      throw new IllegalArgumentException("rota.http.max-long-polls-per-token must be at least 1");
    }
    tokens = Map.copyOf(tokens);
    allowedOrigins = Set.copyOf(allowedOrigins);
  }

  public static HttpSettings from(Config config) {
    Config http = config.getConfig("rota.http");
    Map<String, Caller> tokens = new LinkedHashMap<>();
    tokensOf(http.getConfigList("tokens"), tokens);
    if (http.hasPath("tokens-list")) {
      parseEntries(http.getString("tokens-list"), "rota.http.tokens-list", tokens);
    }
    if (http.hasPath("tokens-file") && !http.getString("tokens-file").isBlank()) {
      Path file = Path.of(http.getString("tokens-file"));
      try {
        parseEntries(
            Files.readString(file, StandardCharsets.UTF_8),
            "rota.http.tokens-file " + file,
            tokens);
      } catch (IOException e) {
        throw new ConfigException.BadValue(
            "rota.http.tokens-file", "cannot read " + file + ": " + e.getMessage());
      }
    }
    return new HttpSettings(
        http.getDuration("ask-timeout"),
        http.getBytes("max-body-bytes"),
        http.getInt("retry-after-seconds"),
        tokens,
        http.hasPath("allow-anonymous") && http.getBoolean("allow-anonymous"),
        http.hasPath("max-long-polls") ? http.getInt("max-long-polls") : 1000,
        allowedOrigins(http),
        http.hasPath("max-long-polls-per-token") ? http.getInt("max-long-polls-per-token") : 500);
  }

  /**
   * {@code rota.http.allowed-origins}: a list, or one string of entries separated by commas or
   * white space ({@code ROTA_HTTP_ALLOWED_ORIGINS}); each {@code http(s)://host[:port]}.
   */
  private static Set<String> allowedOrigins(Config http) {
    if (!http.hasPath("allowed-origins")) {
      return Set.of();
    }
    List<String> entries =
        http.getValue("allowed-origins").valueType() == ConfigValueType.LIST
            ? http.getStringList("allowed-origins")
            : List.of(http.getString("allowed-origins").split("[\\s,]+"));
    Set<String> origins = new LinkedHashSet<>();
    for (String entry : entries) {
      if (entry.isBlank()) {
        continue;
      }
      origins.add(
          CrossSiteGuard.normalise(entry.strip())
              .orElseThrow(
                  () ->
                      new ConfigException.BadValue(
                          "rota.http.allowed-origins",
                          "'" + entry + "' is not an origin: http(s)://host[:port], no path")));
    }
    return origins;
  }

  public boolean authEnabled() {
    return !tokens.isEmpty();
  }

  /**
   * Refuses to serve the API without tokens on an interface other machines can reach, unless
   * anonymous access was asked for by name ({@code rota.http.allow-anonymous}).
   *
   * @throws IllegalStateException with a one-line reason
   */
  public void requireSafeExposure(String interfaceName) {
    if (authEnabled() || allowAnonymous || isLoopback(interfaceName)) {
      return;
    }
    throw new IllegalStateException(
        "the API would serve "
            + interfaceName
            + " without tokens: configure tokens (ROTA_API_TOKENS or ROTA_API_TOKENS_FILE),"
            + " bind to 127.0.0.1, or set ROTA_HTTP_ALLOW_ANONYMOUS=true to allow anyone");
  }

  static boolean isLoopback(String interfaceName) {
    try {
      return InetAddress.getByName(interfaceName).isLoopbackAddress();
    } catch (UnknownHostException e) {
      return false;
    }
  }

  private static final Set<String> TOKEN_KEYS = Set.of("token", "roles", "tenants", "runnerIds");

  private static void tokensOf(List<? extends Config> entries, Map<String, Caller> tokens) {
    for (int i = 0; i < entries.size(); i++) {
      Config entry = entries.get(i);
      String where = "rota.http.tokens[" + i + "]";
      for (String key : entry.root().keySet()) {
        if (!TOKEN_KEYS.contains(key)) {
          throw new ConfigException.BadValue(
              where + "." + key,
              "unknown token setting (known: token, roles, tenants, runnerIds); a setting this"
                  + " node does not understand would be ignored and the token get more than meant");
        }
      }
      if (!entry.hasPath("token") || entry.getString("token").isBlank()) {
        throw new ConfigException.Missing(where + ".token");
      }
      if (!entry.hasPath("roles")) {
        throw new ConfigException.Missing(where + ".roles");
      }
      List<String> tenants = entry.hasPath("tenants") ? entry.getStringList("tenants") : List.of();
      List<String> runnerIds =
          entry.hasPath("runnerIds") ? entry.getStringList("runnerIds") : List.of();
      if (entry.hasPath("tenants") && tenants.isEmpty()) {
        throw new ConfigException.BadValue(
            where + ".tenants", "an empty list would mean every tenant: leave it out instead");
      }
      if (entry.hasPath("runnerIds") && runnerIds.isEmpty()) {
        throw new ConfigException.BadValue(
            where + ".runnerIds", "an empty list would mean any runner: leave it out instead");
      }
      if (!tenants.isEmpty()
          && runnerIds.isEmpty()
          && entry.getStringList("roles").stream().anyMatch(r -> r.trim().equals("runner"))) {
        // Runner ids are one namespace across tenants: such a token could degrade, drain through
        // failures or take the leases of another tenant's runners.
        throw new ConfigException.BadValue(
            where + ".runnerIds",
            "a runner token scoped to tenants must name the runner ids it acts as (e.g. runnerIds"
                + " = [\""
                + tenants.get(0)
                + "-runner-*\"]): runner ids are shared by every tenant");
      }
      add(
          tokens,
          where,
          entry.getString("token"),
          entry.getStringList("roles"),
          tenants,
          runnerIds);
    }
  }

  /** Entries {@code <token>:<role>[,<role>]}, separated by whitespace or {@code ;}. */
  static void parseEntries(String text, String where, Map<String, Caller> tokens) {
    int line = 0;
    for (String rawLine : text.split("\\R")) {
      line++;
      int hash = rawLine.indexOf('#');
      String content = hash >= 0 ? rawLine.substring(0, hash) : rawLine;
      int onLine = 0;
      for (String entry : content.split("[\\s;]+")) {
        if (entry.isEmpty()) {
          continue;
        }
        int colon = entry.lastIndexOf(':');
        // Each entry is its own caller: one line may carry several runners' tokens, each with its
        // own share of the per-token caps.
        String at = where + " (line " + line + ", entry " + ++onLine + ")";
        if (colon <= 0 || colon == entry.length() - 1) {
          throw new ConfigException.BadValue(
              at,
              "an entry must be <token>:<role>[,<role>] (roles: producer, runner, metrics,"
                  + " admin)");
        }
        add(
            tokens,
            at,
            entry.substring(0, colon),
            List.of(entry.substring(colon + 1).split(",")),
            List.of(),
            List.of());
      }
    }
  }

  private static void add(
      Map<String, Caller> tokens,
      String where,
      String token,
      List<String> roleNames,
      List<String> tenants,
      List<String> runnerIds) {
    Set<Role> roles = EnumSet.noneOf(Role.class);
    for (String name : roleNames) {
      try {
        roles.add(Role.fromWire(name.trim()));
      } catch (IllegalArgumentException e) {
        throw new ConfigException.BadValue(where + ".roles", e.getMessage());
      }
    }
    if (roles.isEmpty()) {
      throw new ConfigException.BadValue(where + ".roles", "a token needs at least one role");
    }
    Caller caller;
    try {
      caller = new Caller(where, roles, Set.copyOf(tenants), runnerIds);
    } catch (IllegalArgumentException e) {
      throw new ConfigException.BadValue(where, e.getMessage());
    }
    if (tokens.put(token, caller) != null) {
      throw new ConfigException.BadValue(where, "the same token is listed twice");
    }
  }

  /** Never prints the tokens themselves. */
  @Override
  public String toString() {
    return "HttpSettings[askTimeout="
        + askTimeout
        + ", maxBodyBytes="
        + maxBodyBytes
        + ", retryAfterSeconds="
        + retryAfterSeconds
        + ", tokens="
        + tokens.size()
        + ", allowAnonymous="
        + allowAnonymous
        + ", maxLongPolls="
        + maxLongPolls
        + ", allowedOrigins="
        + allowedOrigins
        + "]";
  }
}
