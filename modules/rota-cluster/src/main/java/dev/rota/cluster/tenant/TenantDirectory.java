package dev.rota.cluster.tenant;

import dev.rota.cluster.CborSerializable;
import dev.rota.core.tenant.TenantSpec;
import dev.rota.core.tenant.TenantTable;
import dev.rota.core.tenant.Tenants;
import java.time.Duration;
import java.time.Instant;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.ActorSystem;
import org.apache.pekko.actor.typed.BackoffSupervisorStrategy;
import org.apache.pekko.actor.typed.Behavior;
import org.apache.pekko.actor.typed.SupervisorStrategy;
import org.apache.pekko.actor.typed.javadsl.Behaviors;
import org.apache.pekko.actor.typed.pubsub.Topic;
import org.apache.pekko.cluster.typed.ClusterSingleton;
import org.apache.pekko.cluster.typed.SingletonActor;
import org.apache.pekko.persistence.typed.PersistenceId;
import org.apache.pekko.persistence.typed.RecoveryCompleted;
import org.apache.pekko.persistence.typed.javadsl.CommandHandlerWithReply;
import org.apache.pekko.persistence.typed.javadsl.EventHandler;
import org.apache.pekko.persistence.typed.javadsl.EventSourcedBehaviorWithEnforcedReplies;
import org.apache.pekko.persistence.typed.javadsl.ReplyEffect;
import org.apache.pekko.persistence.typed.javadsl.SignalHandler;

/**
 * The cluster's tenants: a persistent cluster singleton holding what admins set ({@code PUT} and
 * {@code DELETE /admin/tenants/{tenant}}) over the tenants configuration declares ({@code
 * rota.tenants}, {@link TenantTables#configured()}). Every change, and the table after recovery, is
 * published on a topic that every node's {@link TenantFollower} applies to its {@link
 * TenantTables}.
 *
 * <p>Configuration is the floor: a tenant declared there always exists and cannot be deleted
 * through the API (409); an admin's {@code PUT} on it is stored and wins over the configured values
 * until the admin sets it again, across restarts. A tenant created by an admin lives in the journal
 * alone. {@code default} always exists and cannot be deleted.
 */
public final class TenantDirectory
    extends EventSourcedBehaviorWithEnforcedReplies<
        TenantDirectory.Command, TenantDirectory.Event, TenantDirectory.State> {

  public sealed interface Command extends CborSerializable {}

  /** Creates or changes a tenant; answered with {@link Stored}. */
  public record SetTenant(TenantSpec spec, ActorRef<Stored> replyTo) implements Command {}

  /** Deletes a tenant; answered with {@link Deleted}. The caller checked it has no agents. */
  public record DeleteTenant(String name, ActorRef<Deleted> replyTo) implements Command {}

  /** Answered with the {@link Listing}. */
  public record GetTenants(ActorRef<Listing> replyTo) implements Command {}

  /**
   * Every tenant and the directory's revision (its events so far): the answer to {@link GetTenants}
   * and what the topic carries. A node applies a listing only if it is not older than the one it
   * has.
   */
  public record Listing(long revision, List<TenantSpec> tenants) implements CborSerializable {
    public TenantTable table() {
      Map<String, TenantSpec> byName = new TreeMap<>();
      tenants.forEach(t -> byName.put(t.name(), t));
      return TenantTable.of(byName);
    }
  }

  /** The tenant as stored; {@code created} when it did not exist before. */
  public record Stored(TenantSpec spec, boolean created) implements CborSerializable {}

  /** How a deletion went. */
  public enum Outcome {
    DELETED,
    NOT_FOUND,
    /** Declared in configuration: remove it there. */
    CONFIGURED,
    /** {@code default} always exists. */
    DEFAULT
  }

  public record Deleted(Outcome outcome) implements CborSerializable {}

  public sealed interface Event extends CborSerializable {}

  /**
   * An admin set a tenant. Plain fields rather than a {@link TenantSpec}, so the journal's schema
   * does not follow the core record's.
   */
  public record TenantSet(
      String name, int weight, Integer maxConcurrent, Integer maxActivationsPerMinute, Instant at)
      implements Event {
    TenantSpec spec() {
      return new TenantSpec(name, weight, maxConcurrent, maxActivationsPerMinute);
    }
  }

  public record TenantDeleted(String name, Instant at) implements Event {}

  /**
   * What admins set, by name (a tenant deleted is removed), and the number of events applied.
   * Configuration is not part of it: it is read again at every start.
   */
  public record State(Map<String, TenantSpec> set, long revision) implements CborSerializable {
    public State {
      set = Collections.unmodifiableMap(new TreeMap<>(set));
    }

    State with(TenantSpec spec) {
      Map<String, TenantSpec> next = new TreeMap<>(set);
      next.put(spec.name(), spec);
      return new State(next, revision + 1);
    }

    State without(String name) {
      Map<String, TenantSpec> next = new TreeMap<>(set);
      next.remove(name);
      return new State(next, revision + 1);
    }
  }

  public static final String TOPIC = "rota-tenants";

  private static final BackoffSupervisorStrategy PERSIST_FAILURE_BACKOFF =
      SupervisorStrategy.restartWithBackoff(Duration.ofMillis(200), Duration.ofSeconds(5), 0.2);

  /**
   * Starts the singleton (and its topic) and this node's follower, which keeps {@link TenantTables}
   * up to date; returns the singleton's proxy.
   */
  public static ActorRef<Command> init(ActorSystem<?> system) {
    ActorRef<Topic.Command<Listing>> topic = topic(system);
    TenantTable configured = TenantTables.get(system).configured();
    ActorRef<Command> proxy =
        ClusterSingleton.get(system)
            .init(
                SingletonActor.of(
                    Behaviors.setup(ctx -> new TenantDirectory(topic, configured)),
                    "rota-tenant-directory"));
    TenantFollower.start(system, proxy, topic);
    return proxy;
  }

  /** This node's handle on the tenants topic. */
  public static ActorRef<Topic.Command<Listing>> topic(ActorSystem<?> system) {
    return TopicHolder.get(system).topic();
  }

  private final ActorRef<Topic.Command<Listing>> topic;
  private final TenantTable configured;

  private TenantDirectory(ActorRef<Topic.Command<Listing>> topic, TenantTable configured) {
    // As the pause switch: a failed write restarts the singleton rather than stopping it.
    super(PersistenceId.ofUniqueId("rota-tenants"), PERSIST_FAILURE_BACKOFF);
    this.topic = topic;
    this.configured = configured;
  }

  /** The table in force: configuration, overlaid with what admins set. */
  static TenantTable effective(TenantTable configured, State state) {
    TenantTable table = configured;
    for (TenantSpec spec : state.set().values()) {
      table = table.with(spec);
    }
    return table;
  }

  static Listing listing(TenantTable configured, State state) {
    return new Listing(state.revision(), List.copyOf(effective(configured, state).all()));
  }

  @Override
  public State emptyState() {
    return new State(Map.of(), 0);
  }

  @Override
  public CommandHandlerWithReply<Command, Event, State> commandHandler() {
    return newCommandHandlerWithReplyBuilder()
        .forAnyState()
        .onCommand(
            GetTenants.class,
            (state, cmd) -> Effect().reply(cmd.replyTo(), listing(configured, state)))
        .onCommand(SetTenant.class, this::onSet)
        .onCommand(DeleteTenant.class, this::onDelete)
        .build();
  }

  private ReplyEffect<Event, State> onSet(State state, SetTenant cmd) {
    TenantSpec spec = cmd.spec();
    boolean created = !effective(configured, state).exists(spec.name());
    if (spec.equals(state.set().get(spec.name()))) {
      return Effect().reply(cmd.replyTo(), new Stored(spec, false));
    }
    return Effect()
        .persist(
            new TenantSet(
                spec.name(),
                spec.weight(),
                spec.maxConcurrent(),
                spec.maxActivationsPerMinute(),
                Instant.now()))
        .thenRun(this::publish)
        .thenReply(cmd.replyTo(), s -> new Stored(spec, created));
  }

  private ReplyEffect<Event, State> onDelete(State state, DeleteTenant cmd) {
    String name = cmd.name();
    if (Tenants.DEFAULT.equals(name)) {
      return Effect().reply(cmd.replyTo(), new Deleted(Outcome.DEFAULT));
    }
    if (configured.exists(name)) {
      return Effect().reply(cmd.replyTo(), new Deleted(Outcome.CONFIGURED));
    }
    if (!state.set().containsKey(name)) {
      return Effect().reply(cmd.replyTo(), new Deleted(Outcome.NOT_FOUND));
    }
    return Effect()
        .persist(new TenantDeleted(name, Instant.now()))
        .thenRun(this::publish)
        .thenReply(cmd.replyTo(), s -> new Deleted(Outcome.DELETED));
  }

  @Override
  public EventHandler<State, Event> eventHandler() {
    return newEventHandlerBuilder()
        .forAnyState()
        .onEvent(TenantSet.class, (state, e) -> state.with(e.spec()))
        .onEvent(TenantDeleted.class, (state, e) -> state.without(e.name()))
        .build();
  }

  @Override
  public SignalHandler<State> signalHandler() {
    return newSignalHandlerBuilder().onSignal(RecoveryCompleted.instance(), this::publish).build();
  }

  private void publish(State state) {
    topic.tell(Topic.publish(listing(configured, state)));
  }

  /** One topic actor per node. */
  private static final class TopicHolder implements org.apache.pekko.actor.typed.Extension {
    private final ActorRef<Topic.Command<Listing>> topic;

    private TopicHolder(ActorSystem<?> system) {
      topic =
          system.systemActorOf(
              Topic.create(Listing.class, TOPIC),
              "rota-tenants-topic",
              org.apache.pekko.actor.typed.Props.empty());
    }

    ActorRef<Topic.Command<Listing>> topic() {
      return topic;
    }

    static TopicHolder get(ActorSystem<?> system) {
      return Id.INSTANCE.apply(system);
    }

    private static final class Id extends org.apache.pekko.actor.typed.ExtensionId<TopicHolder> {
      static final Id INSTANCE = new Id();

      @Override
      public TopicHolder createExtension(ActorSystem<?> system) {
        return new TopicHolder(system);
      }
    }
  }

  static Behavior<Command> behaviorForTests(
      ActorRef<Topic.Command<Listing>> topic, TenantTable configured) {
    return new TenantDirectory(topic, configured);
  }
}
