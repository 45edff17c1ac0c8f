package dev.rota.http;

import java.util.Locale;

/**
 * What a bearer token may do. Each resource requires one role; {@link #ADMIN} implies all of them.
 */
public enum Role {
  /** Registers agents and sends them notifications. */
  PRODUCER,
  /** Claims activations and reports on leases. */
  RUNNER,
  /** Reads {@code /metrics} and nothing else: what a Prometheus scraper holds. */
  METRICS,
  /** Everything, including pausing the system and redriving dead letters. */
  ADMIN;

  /**
   * The name used in config and messages: {@code producer}, {@code runner}, {@code metrics}, {@code
   * admin}.
   */
  public String wireName() {
    return name().toLowerCase(Locale.ROOT);
  }

  /** Parses a role name from config. */
  public static Role fromWire(String value) {
    for (Role role : values()) {
      if (role.wireName().equals(value)) {
        return role;
      }
    }
    throw new IllegalArgumentException(
        "unknown role '" + value + "' (expected producer, runner, metrics or admin)");
  }
}
