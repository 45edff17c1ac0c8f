package dev.rota.server;

import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.Behavior;
import org.apache.pekko.persistence.typed.PersistenceId;
import org.apache.pekko.persistence.typed.javadsl.CommandHandler;
import org.apache.pekko.persistence.typed.javadsl.EventHandler;
import org.apache.pekko.persistence.typed.javadsl.EventSourcedBehavior;

/**
 * A tiny event-sourced actor that proves a node's journal works: it persists strings, tagged {@link
 * #TAG}, and replies with everything it has persisted, including before a restart.
 */
final class JournalProbe extends EventSourcedBehavior<JournalProbe.Command, String, List<String>> {
  static final String TAG = "journal-probe";

  sealed interface Command {}

  record Append(String entry, ActorRef<List<String>> replyTo) implements Command {}

  record Read(ActorRef<List<String>> replyTo) implements Command {}

  static Behavior<Command> create(String id) {
    return new JournalProbe(PersistenceId.ofUniqueId("journal-probe-" + id));
  }

  private JournalProbe(PersistenceId persistenceId) {
    super(persistenceId);
  }

  @Override
  public List<String> emptyState() {
    return List.of();
  }

  @Override
  public CommandHandler<Command, String, List<String>> commandHandler() {
    return newCommandHandlerBuilder()
        .forAnyState()
        .onCommand(
            Append.class,
            (state, append) -> Effect().persist(append.entry()).thenReply(append.replyTo(), s -> s))
        .onCommand(Read.class, (state, read) -> Effect().reply(read.replyTo(), state))
        .build();
  }

  @Override
  public EventHandler<List<String>, String> eventHandler() {
    return (state, entry) -> {
      List<String> next = new ArrayList<>(state);
      next.add(entry);
      return List.copyOf(next);
    };
  }

  @Override
  public Set<String> tagsFor(String event) {
    return Set.of(TAG);
  }
}
