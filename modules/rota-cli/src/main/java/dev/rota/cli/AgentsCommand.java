package dev.rota.cli;

import dev.rota.client.Agent;
import dev.rota.client.AgentPage;
import dev.rota.client.AgentQuery;
import dev.rota.client.Explanation;
import dev.rota.client.RotaClient;
import dev.rota.client.RotaException;
import java.io.PrintWriter;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/** {@code rota agents list|get|explain|pause|resume}. */
@Command(
    name = "agents",
    description = "List, show, explain, pause and resume agents.",
    subcommands = {
      AgentsCommand.ListAgents.class,
      AgentsCommand.Get.class,
      AgentsCommand.Explain.class,
      AgentsCommand.Pause.class,
      AgentsCommand.Resume.class
    })
final class AgentsCommand implements Runnable {
  @CommandLine.Spec CommandLine.Model.CommandSpec spec;

  @Override
  public void run() {
    throw new CommandLine.ParameterException(spec.commandLine(), "a sub-command is required");
  }

  @Command(name = "list", description = "One page of agents, stalest or most unread first.")
  static final class ListAgents implements Runnable {
    @Mixin ConnectionOptions options;

    @Option(
        names = "--order",
        defaultValue = "stalest",
        description = "stalest (default) or inbox.")
    String order;

    @Option(names = "--limit", defaultValue = "50", description = "At most this many (default 50).")
    int limit;

    @Option(names = "--after", paramLabel = "CURSOR", description = "The page after this cursor.")
    String after;

    @Override
    public void run() {
      if (!order.equals("stalest") && !order.equals("inbox")) {
        throw new IllegalArgumentException("--order must be stalest or inbox, not " + order);
      }
      AgentPage page;
      try (RotaClient client = options.client()) {
        AgentQuery query = order.equals("inbox") ? AgentQuery.inbox() : AgentQuery.stalest();
        query = query.limit(limit);
        page = client.listAgents(after == null ? query : query.after(after));
      }
      if (options.json) {
        options.printJson(page);
        return;
      }
      Table table =
          new Table(
              "AGENT",
              "STATUS",
              "UNREAD",
              "OLDEST UNREAD",
              "LAST ACTIVATED",
              "ACTIVATIONS",
              "DEAD");
      for (Agent a : page.agents()) {
        table.row(
            a.agentId(),
            a.status(),
            a.inbox() == null ? 0 : a.inbox().unread(),
            a.inbox() == null ? null : a.inbox().oldestUnreadAt(),
            a.lastActivatedAt(),
            a.activationCount(),
            a.deadLetters());
      }
      PrintWriter out = options.out();
      table.print(out);
      if (page.next() != null) {
        out.println("next page: --after " + page.next());
      }
      out.flush();
    }
  }

  @Command(name = "get", description = "One agent.")
  static final class Get implements Runnable {
    @Mixin ConnectionOptions options;

    @Parameters(paramLabel = "AGENT_ID")
    String agentId;

    @Override
    public void run() {
      try (RotaClient client = options.client()) {
        printAgent(options, client.getAgent(agentId));
      }
    }
  }

  @Command(name = "explain", description = "Why an agent is or is not being picked.")
  static final class Explain implements Callable<Integer> {
    @Mixin ConnectionOptions options;

    @Parameters(paramLabel = "AGENT_ID")
    String agentId;

    @Override
    public Integer call() {
      Explanation e;
      try (RotaClient client = options.client()) {
        e = client.explain(agentId);
      } catch (RotaException.NotFound notFound) {
        // Said plainly: an unknown agent, or a server that does not serve explain yet.
        PrintWriter err = options.command.commandLine().getErr();
        err.println(
            "rota: explain "
                + agentId
                + ": GET /v1/agents/"
                + agentId
                + "/explain answered "
                + notFound.getMessage()
                + " (the agent is unknown, or this server does not serve explain yet)");
        err.flush();
        return RotaCli.NOT_FOUND;
      }
      if (options.json) {
        options.printJson(e);
        return RotaCli.OK;
      }
      PrintWriter out = options.out();
      out.println(
          "agent "
              + e.agentId()
              + ": "
              + (e.eligible() ? "eligible" : "not eligible")
              + " (at "
              + e.now()
              + ")");
      if (e.blockedBy() != null && !e.blockedBy().isEmpty()) {
        Table blocks = new Table("BLOCKED BY", "UNTIL", "DETAIL");
        for (Explanation.Block b : e.blockedBy()) {
          blocks.row(b.reason(), b.until(), b.detail());
        }
        blocks.print(out);
      }
      Table ranks = new Table("", "");
      if (e.inbox() != null) {
        ranks.row("inbox", rank(e.inbox(), e.inbox().unread() + " unread"));
      }
      if (e.staleness() != null) {
        ranks.row(
            "staleness", rank(e.staleness(), "last activated " + e.staleness().lastActivatedAt()));
      }
      if (e.scheduled() != null) {
        ranks.row(
            "scheduled",
            "next fire " + e.scheduled().nextFireAt() + (e.scheduled().due() ? ", due" : ""));
      }
      ranks.print(out);
      return RotaCli.OK;
    }

    private static String rank(Explanation.Rank rank, String what) {
      return what
          + (rank.rank() == null
              ? ", not in this order"
              : ", rank " + rank.rank() + " (" + rank.ahead() + " ahead)");
    }
  }

  @Command(name = "pause", description = "Pause one agent: it is not activated until resumed.")
  static final class Pause implements Runnable {
    @Mixin ConnectionOptions options;

    @Parameters(paramLabel = "AGENT_ID")
    String agentId;

    @Override
    public void run() {
      try (RotaClient client = options.client()) {
        printAgent(options, client.pauseAgent(agentId));
      }
    }
  }

  @Command(name = "resume", description = "Resume one agent.")
  static final class Resume implements Runnable {
    @Mixin ConnectionOptions options;

    @Parameters(paramLabel = "AGENT_ID")
    String agentId;

    @Override
    public void run() {
      try (RotaClient client = options.client()) {
        printAgent(options, client.resumeAgent(agentId));
      }
    }
  }

  static void printAgent(ConnectionOptions options, Agent a) {
    if (options.json) {
      options.printJson(a);
      return;
    }
    Table table =
        new Table("", "")
            .row("agent", a.agentId())
            .row("name", a.name())
            .row("status", a.status())
            .row("capabilities", String.join(", ", a.capabilities()))
            .row("priority", a.priority())
            .row(
                "inbox",
                a.inbox().unread()
                    + " unread"
                    + (a.inbox().oldestUnreadAt() == null
                        ? ""
                        : ", oldest " + a.inbox().oldestUnreadAt()))
            .row("last activated", a.lastActivatedAt())
            .row("activations", a.activationCount())
            .row("dead letters", a.deadLetters())
            .row("max attempts", a.maxAttempts())
            .row("min interval", a.minActivationIntervalSeconds() + " s");
    if (a.lease() != null) {
      table.row(
          "lease",
          a.lease().kind()
              + ", held by "
              + a.lease().runnerId()
              + " until "
              + a.lease().expiresAt());
    }
    table.print(options.out());
  }
}
