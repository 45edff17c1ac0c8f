package dev.rota.cli;

import com.fasterxml.jackson.core.JsonProcessingException;
import dev.rota.client.EventQuery;
import dev.rota.client.EventStream;
import dev.rota.client.RotaClient;
import dev.rota.client.RotaEvent;
import java.io.PrintWriter;
import java.util.List;
import java.util.Timer;
import java.util.TimerTask;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/**
 * {@code rota events [--follow]}: the event stream, one line per event (with {@code --json}, the
 * event's JSON object). It reconnects by itself and resumes after the last event it printed.
 */
@Command(name = "events", description = "Print the event stream.")
final class EventsCommand implements Runnable {
  @Mixin ConnectionOptions options;

  @Option(
      names = {"-f", "--follow"},
      description = "Keep following until interrupted (Ctrl-C).")
  boolean follow;

  @Option(
      names = "--seconds",
      defaultValue = "10",
      description = "Without --follow: stop after this many seconds (default 10).")
  int seconds;

  @Option(names = "--agent", paramLabel = "AGENT_ID", description = "Only this agent's events.")
  String agentId;

  @Option(
      names = "--types",
      split = ",",
      paramLabel = "TYPE",
      description = "Only these types, e.g. activation.failed,notification.dead_lettered.")
  List<String> types;

  @Option(names = "--since", paramLabel = "EVENT_ID", description = "Resume after this event id.")
  String since;

  @Override
  public void run() {
    EventQuery query = EventQuery.all();
    if (agentId != null) {
      query = query.agentId(agentId);
    }
    if (types != null) {
      query = query.types(types.toArray(String[]::new));
    }
    if (since != null) {
      query = query.since(since);
    }
    PrintWriter out = options.out();
    Timer timer = null;
    try (RotaClient client = options.client();
        EventStream stream = client.events(query)) {
      if (!follow) {
        timer = new Timer("rota-events-stop", true);
        timer.schedule(
            new TimerTask() {
              @Override
              public void run() {
                stream.close();
              }
            },
            seconds * 1000L);
      }
      while (stream.hasNext()) {
        RotaEvent event = stream.next();
        // The server may not filter yet; filtering here as well keeps the promise of the flags.
        if ((agentId != null && !agentId.equals(event.agentId()))
            || (types != null && !types.contains(event.type()))) {
          continue;
        }
        out.println(options.json ? compact(event) : line(event));
        out.flush();
      }
    } finally {
      if (timer != null) {
        timer.cancel();
      }
    }
  }

  private static String line(RotaEvent e) {
    return e.at()
        + "  "
        + e.type()
        + (e.agentId() == null ? "" : "  " + e.agentId())
        + (e.id() == null ? "" : "  id=" + e.id());
  }

  private static String compact(RotaEvent e) {
    try {
      return ConnectionOptions.JSON.writeValueAsString(e.data());
    } catch (JsonProcessingException ex) {
      throw new IllegalStateException(ex);
    }
  }
}
