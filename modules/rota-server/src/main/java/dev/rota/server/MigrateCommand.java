package dev.rota.server;

import com.typesafe.config.Config;
import com.typesafe.config.ConfigFactory;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * {@code java -jar rota-server.jar migrate}: migrates the database's schema as a starting node
 * would, and exits (docs/operations.md, "Retention and the partitioned journal"). For a migration
 * that should not run under live nodes: V13 partitions the journal and scans it once under its
 * lock. Run with every node stopped, with the nodes' configuration; exits 0, or 1 with the reason.
 */
final class MigrateCommand {
  static final String NAME = "migrate";

  private MigrateCommand() {}

  static int run() {
    Logger log = LoggerFactory.getLogger(MigrateCommand.class);
    Config config = RotaConfig.load(ConfigFactory.empty());
    RotaSettings settings = RotaSettings.from(config);
    try (Database database = Database.open(settings.db())) {
      int applied = database.migrate();
      log.info("{} migration(s) applied to {}", applied, database.describe());
      return 0;
    } catch (RuntimeException e) {
      log.error("Migration failed: {}", e.toString(), e);
      return 1;
    }
  }
}
