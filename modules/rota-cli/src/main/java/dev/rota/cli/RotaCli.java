package dev.rota.cli;

import dev.rota.client.RotaException;
import java.io.PrintWriter;
import java.util.Map;
import picocli.CommandLine;
import picocli.CommandLine.Command;

/**
 * {@code rota}: the operator's command line for a Rota node, over the SDK. Every command takes
 * {@code --url} and {@code --token} or {@code --token-file} (or {@code ROTA_URL}, {@code
 * ROTA_TOKEN}, {@code ROTA_TOKEN_FILE}) and {@code --json}; human tables are the default.
 *
 * <p>Exit codes, for scripts: 0 success; 1 an unexpected failure; 2 a usage error; 3 not found
 * (404); 4 not allowed (401, 403); 5 refused (400, 409, 410, 413, 429); 6 unavailable (503, or no
 * connection).
 */
@Command(
    name = "rota",
    mixinStandardHelpOptions = true,
    versionProvider = RotaCli.Version.class,
    description =
        "Operate a Rota node: stats, agents, tenants, notifications, dead letters, pause, events.",
    subcommands = {
      SystemCommands.Stats.class,
      SystemCommands.Pools.class,
      RunnersCommand.class,
      TenantsCommand.class,
      AgentsCommand.class,
      NotifyCommand.class,
      DeadLettersCommand.class,
      SystemCommands.Pause.class,
      SystemCommands.Resume.class,
      EventsCommand.class,
      CommandLine.HelpCommand.class
    },
    footerHeading = "%nExit codes:%n",
    footer = {
      "  0 success            3 not found (404)          5 refused (400, 409, 410, 413, 429)",
      "  1 unexpected failure 4 not allowed (401, 403)   6 unavailable (503, no connection)",
      "  2 usage error",
      "%nEnvironment: ROTA_URL (default http://127.0.0.1:8080), ROTA_TOKEN, ROTA_TOKEN_FILE,"
          + " ROTA_TENANT.",
      "A token given with --token shows in ps; prefer ROTA_TOKEN or --token-file."
    })
public final class RotaCli implements Runnable {
  public static final int OK = 0;
  public static final int FAILED = 1;
  public static final int USAGE = 2;
  public static final int NOT_FOUND = 3;
  public static final int NOT_ALLOWED = 4;
  public static final int REFUSED = 5;
  public static final int UNAVAILABLE = 6;

  @CommandLine.Spec CommandLine.Model.CommandSpec spec;

  @Override
  public void run() {
    throw new CommandLine.ParameterException(spec.commandLine(), "a command is required");
  }

  public static void main(String[] args) {
    System.exit(commandLine(System.getenv()).execute(args));
  }

  /** The command line with its exit-code mapping; {@code environment} supplies ROTA_URL/TOKEN. */
  public static CommandLine commandLine(Map<String, String> environment) {
    CommandLine cli = new CommandLine(new RotaCli());
    cli.setDefaultValueProvider(new ConnectionOptions.FromEnvironment(environment));
    cli.setExecutionExceptionHandler(RotaCli::onFailure);
    return cli;
  }

  private static int onFailure(Exception e, CommandLine cli, CommandLine.ParseResult parseResult) {
    PrintWriter err = cli.getErr();
    if (e instanceof RotaException rota) {
      err.println("rota: " + rota.getMessage());
      err.flush();
      return exitCode(rota);
    }
    if (e instanceof IllegalArgumentException) {
      err.println("rota: " + e.getMessage());
      err.flush();
      return USAGE;
    }
    err.println("rota: " + e);
    err.flush();
    return FAILED;
  }

  static int exitCode(RotaException e) {
    return switch (e.status()) {
      case 0, 503 -> UNAVAILABLE;
      case 404 -> NOT_FOUND;
      case 401, 403 -> NOT_ALLOWED;
      case 400, 409, 410, 413, 414, 429, 431 -> REFUSED;
      default -> FAILED;
    };
  }

  /** The version of the jar. */
  static final class Version implements CommandLine.IVersionProvider {
    @Override
    public String[] getVersion() {
      String version = RotaCli.class.getPackage().getImplementationVersion();
      return new String[] {"rota " + (version == null ? "(development)" : version)};
    }
  }
}
