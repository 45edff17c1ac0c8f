package dev.rota.server;

import java.util.Arrays;
import java.util.Locale;

/**
 * The databases Rota runs on. Each names its migrations folder and the matching settings of the
 * persistence plugin (Slick profile), which must agree.
 */
public enum DatabaseDialect {
  H2("h2", "slick.jdbc.H2Profile$"),
  POSTGRES("postgres", "slick.jdbc.PostgresProfile$");

  private final String configName;
  private final String slickProfile;

  DatabaseDialect(String configName, String slickProfile) {
    this.configName = configName;
    this.slickProfile = slickProfile;
  }

  /** The value of {@code rota.db.dialect}. */
  public String configName() {
    return configName;
  }

  /** The expected {@code pekko-persistence-jdbc.shared-databases.slick.profile}. */
  public String slickProfile() {
    return slickProfile;
  }

  /** Flyway location of this dialect's migrations. */
  public String migrationsLocation() {
    return "classpath:db/migration/" + configName;
  }

  /** The dialect named {@code name} in {@code rota.db.dialect}. */
  public static DatabaseDialect fromConfigName(String name) {
    return Arrays.stream(values())
        .filter(d -> d.configName.equals(name.toLowerCase(Locale.ROOT)))
        .findFirst()
        .orElseThrow(
            () ->
                new StartupException(
                    "rota.db.dialect is '" + name + "'; expected one of: h2, postgres"));
  }
}
