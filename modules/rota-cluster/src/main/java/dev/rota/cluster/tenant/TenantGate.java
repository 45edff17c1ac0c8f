package dev.rota.cluster.tenant;

import com.fasterxml.jackson.annotation.JsonSubTypes;
import com.fasterxml.jackson.annotation.JsonTypeInfo;
import dev.rota.cluster.CborSerializable;
import dev.rota.core.tenant.TenantSpec;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletionStage;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.ActorSystem;
import org.apache.pekko.actor.typed.Behavior;
import org.apache.pekko.actor.typed.SupervisorStrategy;
import org.apache.pekko.actor.typed.javadsl.ActorContext;
import org.apache.pekko.actor.typed.javadsl.Behaviors;
import org.apache.pekko.actor.typed.javadsl.TimerScheduler;
import org.apache.pekko.cluster.sharding.typed.ClusterShardingSettings;
import org.apache.pekko.cluster.sharding.typed.javadsl.ClusterSharding;
import org.apache.pekko.cluster.sharding.typed.javadsl.Entity;
import org.apache.pekko.cluster.sharding.typed.javadsl.EntityRef;
import org.apache.pekko.cluster.sharding.typed.javadsl.EntityTypeKey;
import org.apache.pekko.persistence.typed.PersistenceId;
import org.apache.pekko.persistence.typed.RecoveryCompleted;
import org.apache.pekko.persistence.typed.javadsl.CommandHandlerWithReply;
import org.apache.pekko.persistence.typed.javadsl.EventHandler;
import org.apache.pekko.persistence.typed.javadsl.EventSourcedBehaviorWithEnforcedReplies;
import org.apache.pekko.persistence.typed.javadsl.ReplyEffect;
import org.apache.pekko.persistence.typed.javadsl.RetentionCriteria;
import org.apache.pekko.persistence.typed.javadsl.SignalHandler;

/**
 * The caps of one tenant across the cluster: a sharded, event-sourced entity per capped tenant
 * (entity id: the tenant's name), the one place that counts the tenant's leases and grants. An
 * agent of a capped tenant asks it for a permit ({@link Acquire}) before it persists a grant, and
 * gives the permit back ({@link Release}) when the lease ends. Every permit is persisted before it
 * is answered, so a gate that recovers on another node (its node killed) holds every permit it
 * gave; the rules are {@link Permits}'.
 *
 * <p>A release that never arrives (the agent's node died between its event and the message) is
 * recovered without ever dropping a permit whose lease is held: once a permit's {@code checkAt} has
 * passed, the gate asks the agent ({@link LeaseProbe}) and drops the permit only when the agent
 * says it does not hold the lease; a live lease (heartbeats extend leases without telling the gate)
 * is asked about again when the agent says it ends. An agent that does not answer keeps its permit.
 */
public final class TenantGate
    extends EventSourcedBehaviorWithEnforcedReplies<TenantGate.Command, TenantGate.Event, Permits> {

  public static final EntityTypeKey<Command> ENTITY_TYPE_KEY =
      EntityTypeKey.create(Command.class, "TenantGate");

  /** Every command of a gate. */
  public sealed interface Command extends CborSerializable {}

  /**
   * Agent {@code agentKey} asks to grant lease {@code leaseId} of {@code leaseSeconds}: replies
   * {@link Permitted} (the permit is persisted) or {@link Refused}.
   */
  public record Acquire(
      String agentKey, String leaseId, long leaseSeconds, ActorRef<Answer> replyTo)
      implements Command {}

  /** The lease ended (or was never granted): its permit is given back. No reply. */
  public record Release(String leaseId, String why) implements Command {}

  /** Replies {@link Status}. */
  public record GetStatus(ActorRef<Status> replyTo) implements Command {}

  /** Looks for permits to ask about (the gate's own timer). */
  private enum Tick implements Command {
    INSTANCE
  }

  /** An agent's answer about a permit's lease: {@code left} empty when it does not hold it. */
  private record Checked(
      String leaseId, long generation, Optional<Duration> left, Throwable failure)
      implements Command {}

  /** A gate's answer to {@link Acquire}. */
  @JsonTypeInfo(use = JsonTypeInfo.Id.NAME, property = "type")
  @JsonSubTypes({
    @JsonSubTypes.Type(value = Permitted.class, name = "permitted"),
    @JsonSubTypes.Type(value = Refused.class, name = "refused")
  })
  public sealed interface Answer extends CborSerializable {}

  public record Permitted(String leaseId) implements Answer {}

  /**
   * No permit: {@code reason} {@code tenant_cap} or {@code tenant_rate}; {@code until} when time
   * alone ends the refusal, null when unknown.
   */
  public record Refused(String reason, Instant until) implements Answer {}

  /**
   * The gate now: the permits {@code held} against {@code maxConcurrent}, the grants of the last
   * minute against {@code maxPerMinute}, when the rate cap lets a grant through again ({@code
   * rateUntil}, null when it does now), the leases holding permits, and when the gate next asks an
   * agent about one ({@code nextCheckAt}, null without permits).
   */
  public record Status(
      String tenant,
      int held,
      Integer maxConcurrent,
      int lastMinute,
      Integer maxPerMinute,
      Instant rateUntil,
      List<String> leaseIds,
      Instant nextCheckAt)
      implements CborSerializable {
    public Status {
      leaseIds = List.copyOf(leaseIds);
    }
  }

  /** Every event of a gate. */
  public sealed interface Event extends CborSerializable {}

  public record PermitGranted(String agentKey, String leaseId, Instant at, Instant checkAt)
      implements Event {}

  public record PermitReleased(String leaseId, String why, Instant at) implements Event {}

  public record PermitChecked(String leaseId, Instant checkAt) implements Event {}

  /** Starts sharding of gates on this node; {@code probe} asks agents about their leases. */
  public static void init(ActorSystem<?> system, LeaseProbe probe) {
    TenantCapSettings settings = TenantCapSettings.from(system.settings().config());
    ClusterSharding.get(system)
        .init(
            Entity.of(
                    ENTITY_TYPE_KEY,
                    ctx -> create(ctx.getEntityId(), settings, probe, Clock.systemUTC()))
                // One gate per capped tenant, bounded by configuration: never passivated, so its
                // timer keeps asking about permits whose release was lost.
                .withSettings(ClusterShardingSettings.create(system).withNoPassivationStrategy()));
  }

  /** The gate of {@code tenant} (sharding of gates must be started on this node). */
  public static EntityRef<Command> of(ActorSystem<?> system, String tenant) {
    return ClusterSharding.get(system).entityRefFor(ENTITY_TYPE_KEY, tenant);
  }

  /** Asks the gate of {@code tenant} how it stands (the explain route). */
  public static CompletionStage<Status> status(
      ActorSystem<?> system, String tenant, Duration timeout) {
    return of(system, tenant).ask(GetStatus::new, timeout);
  }

  public static Behavior<Command> create(
      String tenant, TenantCapSettings settings, LeaseProbe probe, Clock clock) {
    return Behaviors.setup(
        ctx ->
            Behaviors.withTimers(
                timers -> new TenantGate(tenant, settings, probe, clock, ctx, timers)));
  }

  private final String tenant;
  private final TenantCapSettings settings;
  private final LeaseProbe probe;
  private final Clock clock;
  private final ActorContext<Command> context;
  private final TenantTables tables;

  /** Leases asked about and not answered yet: asked once at a time. */
  private final Set<String> checking = new HashSet<>();

  private TenantGate(
      String tenant,
      TenantCapSettings settings,
      LeaseProbe probe,
      Clock clock,
      ActorContext<Command> context,
      TimerScheduler<Command> timers) {
    // A write the journal fails must not stop the gate for good: it restarts and recovers.
    super(
        PersistenceId.of(ENTITY_TYPE_KEY.name(), tenant),
        SupervisorStrategy.restartWithBackoff(Duration.ofMillis(200), Duration.ofSeconds(5), 0.2));
    this.tenant = tenant;
    this.settings = settings;
    this.probe = probe;
    this.clock = clock;
    this.context = context;
    this.tables = TenantTables.get(context.getSystem());
    timers.startTimerWithFixedDelay(Tick.INSTANCE, settings.checkEvery());
  }

  @Override
  public Permits emptyState() {
    return Permits.EMPTY;
  }

  @Override
  public RetentionCriteria retentionCriteria() {
    return RetentionCriteria.snapshotEvery(100, 2);
  }

  @Override
  public SignalHandler<Permits> signalHandler() {
    return newSignalHandlerBuilder()
        .onSignal(
            RecoveryCompleted.instance(),
            state ->
                context
                    .getLog()
                    .info(
                        "Tenant gate {} recovered with {} permits", tenant, state.permits().size()))
        .build();
  }

  @Override
  public CommandHandlerWithReply<Command, Event, Permits> commandHandler() {
    return newCommandHandlerWithReplyBuilder()
        .forAnyState()
        .onCommand(Acquire.class, this::onAcquire)
        .onCommand(Release.class, this::onRelease)
        .onCommand(GetStatus.class, (s, c) -> Effect().reply(c.replyTo(), status(s)))
        .onCommand(Tick.class, this::onTick)
        .onCommand(Checked.class, this::onChecked)
        .build();
  }

  private ReplyEffect<Event, Permits> onAcquire(Permits state, Acquire cmd) {
    Instant now = clock.instant();
    TenantSpec spec = tables.current().specOf(tenant);
    Permits.Decision decision = state.decide(spec, cmd.leaseId(), now);
    if (decision instanceof Permits.Refuse refuse) {
      return Effect().reply(cmd.replyTo(), new Refused(refuse.reason(), refuse.until()));
    }
    Instant checkAt =
        now.plus(Duration.ofSeconds(Math.max(1, cmd.leaseSeconds()))).plus(settings.checkGrace());
    return Effect()
        .persist(new PermitGranted(cmd.agentKey(), cmd.leaseId(), now, checkAt))
        .thenReply(cmd.replyTo(), s -> new Permitted(cmd.leaseId()));
  }

  private ReplyEffect<Event, Permits> onRelease(Permits state, Release cmd) {
    if (!state.permits().containsKey(cmd.leaseId())) {
      return Effect().noReply();
    }
    return Effect()
        .persist(new PermitReleased(cmd.leaseId(), cmd.why(), clock.instant()))
        .thenNoReply();
  }

  private ReplyEffect<Event, Permits> onTick(Permits state, Tick tick) {
    for (Permits.Permit permit : state.due(clock.instant())) {
      if (!checking.add(permit.leaseId())) {
        continue;
      }
      long generation = permit.generation();
      String leaseId = permit.leaseId();
      context.pipeToSelf(
          probe.held(permit.agentKey(), leaseId),
          (left, failure) -> new Checked(leaseId, generation, left, failure));
    }
    return Effect().noReply();
  }

  private ReplyEffect<Event, Permits> onChecked(Permits state, Checked answer) {
    checking.remove(answer.leaseId());
    // A permit taken again since the question was sent is about a newer grant: the answer is not.
    if (answer.failure() != null || !state.holds(answer.leaseId(), answer.generation())) {
      return Effect().noReply();
    }
    Instant now = clock.instant();
    if (answer.left().isEmpty()) {
      return Effect()
          .persist(new PermitReleased(answer.leaseId(), "lease not held", now))
          .thenNoReply();
    }
    return Effect()
        .persist(
            new PermitChecked(
                answer.leaseId(), now.plus(answer.left().get()).plus(settings.checkGrace())))
        .thenNoReply();
  }

  private Status status(Permits state) {
    Instant now = clock.instant();
    TenantSpec spec = tables.current().specOf(tenant);
    Integer perMinute = spec.maxActivationsPerMinute();
    return new Status(
        tenant,
        state.permits().size(),
        spec.maxConcurrent(),
        state.inWindow(now),
        perMinute,
        perMinute == null ? null : state.rateUntil(perMinute, now),
        state.permits().keySet().stream().sorted().toList(),
        state.permits().values().stream()
            .map(Permits.Permit::checkAt)
            .min(Instant::compareTo)
            .orElse(null));
  }

  @Override
  public EventHandler<Permits, Event> eventHandler() {
    return newEventHandlerBuilder()
        .forAnyState()
        .onEvent(
            PermitGranted.class,
            (s, e) -> s.granted(e.agentKey(), e.leaseId(), e.at(), e.checkAt()))
        .onEvent(PermitReleased.class, (s, e) -> s.released(e.leaseId()))
        .onEvent(PermitChecked.class, (s, e) -> s.checked(e.leaseId(), e.checkAt()))
        .build();
  }
}
