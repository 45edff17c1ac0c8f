package dev.rota.client;

import java.time.Duration;

/**
 * The options of a call: how long the caller waits for the answer at most ({@code timeoutSeconds},
 * 1 s to 24 h; the server's default, one hour, when null), and for a turn's calls, the group whose
 * replies are delivered together once every call of the group has its reply.
 *
 * <pre>{@code
 * CallOptions.timeout(Duration.ofMinutes(10)).group("review");
 * }</pre>
 */
public record CallOptions(Integer timeoutSeconds, String group) {

  /** The server's default timeout, no group. */
  public static CallOptions defaults() {
    return new CallOptions(null, null);
  }

  public static CallOptions timeout(Duration timeout) {
    return defaults().withTimeout(timeout);
  }

  public static CallOptions inGroup(String group) {
    return defaults().group(group);
  }

  public CallOptions withTimeout(Duration timeout) {
    return new CallOptions(Math.toIntExact(timeout.toSeconds()), group);
  }

  /** Joins the call to {@code group}: its reply waits for the other replies of the group. */
  public CallOptions group(String group) {
    return new CallOptions(timeoutSeconds, group);
  }
}
