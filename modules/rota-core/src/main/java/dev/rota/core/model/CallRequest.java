package dev.rota.core.model;

/**
 * The {@code call} of a send: the sender wants an answer within {@code timeoutSeconds}; calls of
 * one turn with the same {@code group} are answered together.
 *
 * @param group null when the call stands alone
 */
public record CallRequest(long timeoutSeconds, String group) {
  public static final long DEFAULT_TIMEOUT_SECONDS = 3_600;
  public static final long MAX_TIMEOUT_SECONDS = 86_400;
}
