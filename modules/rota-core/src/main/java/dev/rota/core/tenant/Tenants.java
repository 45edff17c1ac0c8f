package dev.rota.core.tenant;

import java.util.regex.Pattern;

/** Tenant names: 1–64 of {@code [a-z0-9-]}; {@code default} always exists. */
public final class Tenants {
  /** The tenant every agent belongs to unless it was registered in another. */
  public static final String DEFAULT = "default";

  private static final Pattern NAME = Pattern.compile("[a-z0-9-]{1,64}");

  private Tenants() {}

  public static boolean isValidName(String name) {
    return name != null && NAME.matcher(name).matches();
  }
}
