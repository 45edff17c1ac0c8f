package dev.rota.core.model;

/**
 * The ids of calls made from outside Rota: {@code <tenant>~<random>}. The tenant is in the id, so
 * any node can tell whose call it is without a lookup (another tenant's is 404), and {@code ~},
 * which no agent key holds, tells a reply's target apart from an agent's key.
 */
public final class CallKeys {
  private static final char SEPARATOR = '~';

  private CallKeys() {}

  public static String newExternalCallId(String tenant) {
    return tenant + SEPARATOR + Ids.randomId();
  }

  public static boolean isExternalCall(String key) {
    return key != null && key.indexOf(SEPARATOR) > 0;
  }

  /** The tenant of an external call id; null for anything else. */
  public static String tenantOf(String callId) {
    return isExternalCall(callId) ? callId.substring(0, callId.indexOf(SEPARATOR)) : null;
  }
}
