package dev.rota.http;

import com.typesafe.config.Config;
import com.typesafe.config.ConfigException;
import java.time.Duration;
import java.util.EnumSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The {@code rota.http.*} settings, read once per node. A malformed token list fails start-up
 * rather than silently leaving the API open.
 *
 * @param askTimeout how long a request waits for an agent before it is answered 503
 * @param maxBodyBytes largest accepted request body; larger ones are answered 413
 * @param retryAfterSeconds the Retry-After of 429 and 503 answers
 * @param tokens bearer token → roles; empty means every request is allowed
 */
public record HttpSettings(
    Duration askTimeout, long maxBodyBytes, int retryAfterSeconds, Map<String, Set<Role>> tokens) {

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
    tokens = Map.copyOf(tokens);
  }

  public static HttpSettings from(Config config) {
    Config http = config.getConfig("rota.http");
    return new HttpSettings(
        http.getDuration("ask-timeout"),
        http.getBytes("max-body-bytes"),
        http.getInt("retry-after-seconds"),
        tokensOf(http.getConfigList("tokens")));
  }

  public boolean authEnabled() {
    return !tokens.isEmpty();
  }

  private static Map<String, Set<Role>> tokensOf(List<? extends Config> entries) {
    Map<String, Set<Role>> tokens = new LinkedHashMap<>();
    for (int i = 0; i < entries.size(); i++) {
      Config entry = entries.get(i);
      String where = "rota.http.tokens[" + i + "]";
      if (!entry.hasPath("token") || entry.getString("token").isBlank()) {
        throw new ConfigException.Missing(where + ".token");
      }
      Set<Role> roles = EnumSet.noneOf(Role.class);
      for (String name : entry.getStringList("roles")) {
        try {
          roles.add(Role.fromWire(name));
        } catch (IllegalArgumentException e) {
          throw new ConfigException.BadValue(where + ".roles", e.getMessage());
        }
      }
      if (roles.isEmpty()) {
        throw new ConfigException.BadValue(where + ".roles", "a token needs at least one role");
      }
      if (tokens.put(entry.getString("token"), Set.copyOf(roles)) != null) {
        throw new ConfigException.BadValue(where + ".token", "the same token is listed twice");
      }
    }
    return tokens;
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
        + "]";
  }
}
