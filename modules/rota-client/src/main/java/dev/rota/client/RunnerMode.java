package dev.rota.client;

import java.util.Locale;

/** What a runner asks for: inbox work, staleness work, or inbox then staleness. */
public enum RunnerMode {
  NOTIFICATION,
  EXPLORATION,
  HYBRID;

  /** The name on the wire: {@code notification}, {@code exploration}, {@code hybrid}. */
  public String wireName() {
    return name().toLowerCase(Locale.ROOT);
  }
}
