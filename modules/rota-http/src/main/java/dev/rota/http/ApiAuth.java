package dev.rota.http;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.function.Function;
import java.util.function.Supplier;
import org.apache.pekko.http.javadsl.server.AllDirectives;
import org.apache.pekko.http.javadsl.server.Route;

/**
 * Bearer tokens and roles ({@code Authorization: Bearer <token>}). Each resource requires one role
 * once its path prefix matched (e.g. {@code /v1/agents}), so a path outside every resource is a 404
 * whoever asks. A missing or unknown token is 401 {@code unauthenticated}; a token without the role
 * is 403 {@code forbidden}; {@link Role#ADMIN} implies every role. With no tokens configured
 * everything is allowed: the server then binds to loopback only.
 */
public final class ApiAuth extends AllDirectives {
  private static final String BEARER = "bearer ";

  /** The caller of {@link #requireAs} when the node has no tokens. */
  public static final String ANONYMOUS = "";

  private final Map<String, Set<Role>> tokens;

  public ApiAuth(HttpSettings settings) {
    this.tokens = settings.tokens();
  }

  /** Runs {@code inner} only for a caller whose token has {@code role}. */
  public Route require(Role role, Supplier<Route> inner) {
    return requireAs(role, caller -> inner.get());
  }

  /**
   * As {@link #require}, telling {@code inner} who calls: the caller's token (kept in memory only,
   * one of the configured ones), or {@link #ANONYMOUS} when no tokens are configured.
   */
  public Route requireAs(Role role, Function<String, Route> inner) {
    if (tokens.isEmpty()) {
      return inner.apply(ANONYMOUS);
    }
    return optionalHeaderValueByName(
        "Authorization",
        header -> {
          Optional<String> token = header.flatMap(ApiAuth::bearerToken);
          Set<Role> roles =
              token
                  .flatMap(this::rolesOf)
                  .orElseThrow(
                      () ->
                          new ApiException(
                              ApiError.UNAUTHENTICATED,
                              "a valid token is required: Authorization: Bearer <token>"));
          if (!roles.contains(role) && !roles.contains(Role.ADMIN)) {
            throw new ApiException(
                ApiError.FORBIDDEN, "this token does not have the " + role.wireName() + " role");
          }
          return inner.apply(token.orElseThrow());
        });
  }

  private static Optional<String> bearerToken(String header) {
    if (header.length() <= BEARER.length()
        || !header.regionMatches(true, 0, BEARER, 0, BEARER.length())) {
      return Optional.empty();
    }
    return Optional.of(header.substring(BEARER.length()).trim());
  }

  /** Compares against every token in constant time, so timing does not leak a valid prefix. */
  private Optional<Set<Role>> rolesOf(String candidate) {
    byte[] given = candidate.getBytes(StandardCharsets.UTF_8);
    Set<Role> found = null;
    for (Map.Entry<String, Set<Role>> entry : tokens.entrySet()) {
      if (MessageDigest.isEqual(given, entry.getKey().getBytes(StandardCharsets.UTF_8))) {
        found = entry.getValue();
      }
    }
    return Optional.ofNullable(found);
  }
}
