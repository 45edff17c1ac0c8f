package dev.rota.core.model;

import java.nio.charset.StandardCharsets;
import java.security.SecureRandom;
import java.util.Base64;
import java.util.HexFormat;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.regex.Pattern;

/**
 * Agent id validation and the opaque ids that route back to an agent: lease ids and dead-letter ids
 * carry the agent id (base64url) before a dot, followed by unguessable random bits, so any node can
 * send a heartbeat or redrive to the right entity without a lookup.
 */
public final class Ids {
  private static final Pattern AGENT_ID = Pattern.compile("[A-Za-z0-9._:-]{1,128}");

  /** An agent id, or a tenant's name, a slash and an agent id (see {@code tenant.AgentKeys}). */
  private static final Pattern AGENT_KEY =
      Pattern.compile("(?:[a-z0-9-]{1,64}/)?[A-Za-z0-9._:-]{1,128}");

  private static final SecureRandom RANDOM = new SecureRandom();
  private static final Base64.Encoder B64 = Base64.getUrlEncoder().withoutPadding();
  private static final Base64.Decoder B64D = Base64.getUrlDecoder();

  private Ids() {}

  public static boolean isValidAgentId(String agentId) {
    return agentId != null && AGENT_ID.matcher(agentId).matches();
  }

  /**
   * Whether {@code key} may name an agent inside the cluster: an agent id of the default tenant, or
   * {@code <tenant>/<agentId>}.
   */
  public static boolean isValidAgentKey(String key) {
    return key != null && AGENT_KEY.matcher(key).matches() && !key.startsWith("default/");
  }

  /** 128 random bits, hex: for notification ids. */
  public static String randomId() {
    byte[] bytes = new byte[16];
    RANDOM.nextBytes(bytes);
    return HexFormat.of().formatHex(bytes);
  }

  public static String leaseId(String agentId, long fencingToken) {
    return encode(agentId) + "." + fencingToken + "-" + randomId();
  }

  public static String deadLetterId(String agentId, String notificationId) {
    return encode(agentId) + "." + notificationId;
  }

  /** The agent a lease or dead-letter id belongs to; empty for anything malformed. */
  public static Optional<String> agentOf(String routedId) {
    if (routedId == null) {
      return Optional.empty();
    }
    int dot = routedId.indexOf('.');
    if (dot <= 0 || dot == routedId.length() - 1) {
      return Optional.empty();
    }
    try {
      String agentId = new String(B64D.decode(routedId.substring(0, dot)), StandardCharsets.UTF_8);
      return isValidAgentKey(agentId) ? Optional.of(agentId) : Optional.empty();
    } catch (IllegalArgumentException e) {
      return Optional.empty();
    }
  }

  /** The fencing token a lease id carries; empty for anything malformed. */
  public static OptionalLong fencingTokenOf(String leaseId) {
    if (agentOf(leaseId).isEmpty()) {
      return OptionalLong.empty();
    }
    String rest = leaseId.substring(leaseId.indexOf('.') + 1);
    int dash = rest.indexOf('-');
    try {
      return dash > 0
          ? OptionalLong.of(Long.parseLong(rest.substring(0, dash)))
          : OptionalLong.empty();
    } catch (NumberFormatException e) {
      return OptionalLong.empty();
    }
  }

  /**
   * How logs name a lease: its agent and fencing token, never the id itself, which is its runner's
   * secret (whoever knows it may send reports in that runner's name).
   */
  public static String leaseLabel(String leaseId) {
    Optional<String> agentId = agentOf(leaseId);
    OptionalLong token = fencingTokenOf(leaseId);
    if (agentId.isEmpty()) {
      return "a malformed lease id";
    }
    return "agent "
        + agentId.get()
        + "'s lease (fencing token "
        + (token.isPresent() ? String.valueOf(token.getAsLong()) : "?")
        + ")";
  }

  private static String encode(String agentId) {
    return B64.encodeToString(agentId.getBytes(StandardCharsets.UTF_8));
  }
}
