package dev.rota.cli;

import dev.rota.client.DeadLetter;
import dev.rota.client.RotaClient;
import java.util.List;
import java.util.Map;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/** {@code rota dead-letters list|redrive|discard}. */
@Command(
    name = "dead-letters",
    description = "List dead-lettered notifications, put them back or discard them.",
    subcommands = {
      DeadLettersCommand.ListDeadLetters.class,
      DeadLettersCommand.Redrive.class,
      DeadLettersCommand.Discard.class
    })
final class DeadLettersCommand implements Runnable {
  @CommandLine.Spec CommandLine.Model.CommandSpec spec;

  @Override
  public void run() {
    throw new CommandLine.ParameterException(spec.commandLine(), "a sub-command is required");
  }

  @Command(name = "list", description = "Dead letters, newest first.")
  static final class ListDeadLetters implements Runnable {
    @Mixin ConnectionOptions options;

    @Option(names = "--agent", paramLabel = "AGENT_ID", description = "Only this agent's.")
    String agentId;

    @Option(names = "--limit", description = "At most this many.")
    Integer limit;

    @Override
    public void run() {
      List<DeadLetter> letters;
      try (RotaClient client = options.client()) {
        letters = client.deadLetters(agentId, limit);
      }
      if (options.json) {
        options.printJson(Map.of("deadLetters", letters));
        return;
      }
      Table table = new Table("ID", "AGENT", "TYPE", "ATTEMPTS", "DEAD AT", "REASON");
      for (DeadLetter d : letters) {
        table.row(d.id(), d.agentId(), d.type(), d.attempts(), d.deadAt(), d.reason());
      }
      table.print(options.out());
    }
  }

  @Command(name = "redrive", description = "Put dead letters back into their agents' inboxes.")
  static final class Redrive implements Runnable {
    @Mixin ConnectionOptions options;

    @Parameters(paramLabel = "ID", arity = "1..*", description = "Dead letter ids (from list).")
    List<String> ids;

    @Override
    public void run() {
      eachId(options, ids, "redriven", RotaClient::redrive);
    }
  }

  @Command(
      name = "discard",
      description = "Remove dead letters for good; they are never delivered.")
  static final class Discard implements Runnable {
    @Mixin ConnectionOptions options;

    @Parameters(paramLabel = "ID", arity = "1..*", description = "Dead letter ids (from list).")
    List<String> ids;

    @Override
    public void run() {
      eachId(options, ids, "discarded", RotaClient::discard);
    }
  }

  /** Does {@code action} to each dead letter in turn, saying {@code done} of each as it goes. */
  private static void eachId(
      ConnectionOptions options,
      List<String> ids,
      String done,
      java.util.function.BiConsumer<RotaClient, String> action) {
    try (RotaClient client = options.client()) {
      for (String id : ids) {
        action.accept(client, id);
        if (options.json) {
          options.printJson(Map.of(done, id));
        } else {
          options.out().println(done + " " + id);
          options.out().flush();
        }
      }
    }
  }
}
