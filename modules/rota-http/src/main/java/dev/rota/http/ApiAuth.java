package dev.rota.http;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.util.Map;
import java.util.Optional;
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
 *
 * <p>A resource that works inside tenants takes the {@link Caller} ({@link #requireCaller}) and
 * keeps to its tenants and runner ids; a resource that serves the whole system ({@link #require})
 * refuses a token scoped to tenants, which may not see beyond them.
 */
public final class ApiAuth extends AllDirectives {
  private static final String BEARER = "bearer ";

  private final Map<String, Caller> tokens;

  public ApiAuth(HttpSettings settings) {
    this.tokens = settings.tokens();
  }

  /**
   * Runs {@code inner} only for a caller whose token has {@code role} and works in every tenant:
   * what this resource shows or changes belongs to the whole system.
   */
  public Route require(Role role, Supplier<Route> inner) {
    return requireCaller(
        role,
        caller -> {
          if (!caller.everyTenant()) {
            throw new ApiException(
                ApiError.FORBIDDEN,
                "this token is scoped to tenants "
                    + caller.tenants()
                    + "; this path serves them all");
          }
          return inner.get();
        });
  }

  /** Runs {@code inner} with the caller, only for a token that has {@code role}. */
  public Route requireCaller(Role role, Function<Caller, Route> inner) {
    if (tokens.isEmpty()) {
      return inner.apply(Caller.ANYONE);
    }
    return optionalHeaderValueByName(
        "Authorization",
        header -> {
          Caller caller =
              header
                  .flatMap(ApiAuth::bearerToken)
                  .flatMap(this::callerOf)
                  .orElseThrow(
                      () ->
                          new ApiException(
                              ApiError.UNAUTHENTICATED,
                              "a valid token is required: Authorization: Bearer <token>"));
          if (!caller.has(role)) {
            throw new ApiException(
                ApiError.FORBIDDEN, "this token does not have the " + role.wireName() + " role");
          }
          return inner.apply(caller);
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
  private Optional<Caller> callerOf(String candidate) {
    byte[] given = candidate.getBytes(StandardCharsets.UTF_8);
    Caller found = null;
    for (Map.Entry<String, Caller> entry : tokens.entrySet()) {
      if (MessageDigest.isEqual(given, entry.getKey().getBytes(StandardCharsets.UTF_8))) {
        found = entry.getValue();
      }
    }
    return Optional.ofNullable(found);
  }
}
