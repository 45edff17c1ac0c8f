package dev.rota.bench.seedsql;

import dev.rota.bench.system.Availability;
import dev.rota.bench.system.BenchEnvironment;
import dev.rota.bench.system.BenchSystem;
import dev.rota.bench.system.BenchSystemProvider;

/** {@code seed-sql}: ADR-011's coordinator over JDBC; always available. */
public final class SeedSqlProvider implements BenchSystemProvider {

  public static final String NAME = "seed-sql";
  static final String POLL_OPTION = "seed-sql.idle-poll-ms";

  @Override
  public String name() {
    return NAME;
  }

  @Override
  public String description() {
    return "ADR-011 coordinator as plain SQL over JDBC (GROUP BY inbox, staleness index, "
        + "FOR UPDATE SKIP LOCKED row locks as leases)";
  }

  @Override
  public Availability prepare(BenchEnvironment environment) {
    return Availability.ok();
  }

  @Override
  public BenchSystem create(BenchEnvironment environment) {
    return new SeedSqlSystem(Long.parseLong(environment.option(POLL_OPTION, "50")));
  }
}
