package dev.rota.http;

import com.fasterxml.jackson.databind.JsonNode;
import dev.rota.cluster.readmodel.EventFeed;
import dev.rota.cluster.readmodel.EventFeed.Cursor;
import dev.rota.cluster.readmodel.JournalRetained;
import dev.rota.cluster.readmodel.ReadModel;
import dev.rota.cluster.readmodel.ReadModelException;
import dev.rota.cluster.tenant.TenantTables;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executor;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.pekko.NotUsed;
import org.apache.pekko.actor.typed.ActorSystem;
import org.apache.pekko.http.javadsl.marshalling.sse.EventStreamMarshalling;
import org.apache.pekko.http.javadsl.model.sse.ServerSentEvent;
import org.apache.pekko.http.javadsl.server.AllDirectives;
import org.apache.pekko.http.javadsl.server.PathMatchers;
import org.apache.pekko.http.javadsl.server.Route;
import org.apache.pekko.stream.javadsl.Source;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * {@code GET /v1/events} (role admin): Server-Sent Events, one JSON object per event of the whole
 * cluster ({@link EventFeed}), the SSE {@code event:} being the object's {@code type} and the SSE
 * {@code id:} its position in the journal. Without a position the stream starts at the moment of
 * the request; with {@code Last-Event-ID} (what a reconnecting EventSource sends) or {@code
 * ?since=} it resumes right after that event, without gaps or duplicates. {@code ?agentId=} keeps
 * one agent's events, {@code ?types=a,b} those types. A heartbeat comment every 15 s keeps idle
 * connections open.
 *
 * <p>Each stream polls the journal, so a node serves at most {@code rota.http.events.max-clients}
 * at once, and the tokens scoped to one tenant at most {@code max-clients-per-tenant} of them; past
 * either it answers 503 {@code unavailable} with {@code Retry-After}. The feed reads the journal,
 * so a node without a read model (no database) answers 503 too.
 */
public final class EventsRoutes extends AllDirectives {
  private static final Logger log = LoggerFactory.getLogger(EventsRoutes.class);
  static final Duration HEARTBEAT = Duration.ofSeconds(15);
  static final String MAX_CLIENTS = "rota.http.events.max-clients";
  static final String MAX_CLIENTS_PER_TENANT = "rota.http.events.max-clients-per-tenant";

  /** A reserved slot not taken by a stream within this time is given back. */
  private static final Duration UNCLAIMED_SLOT = Duration.ofSeconds(30);

  private final ActorSystem<?> system;
  private final ReadModel readModel;
  private final Executor blocking;
  private final ApiAuth auth;
  private final TenantResolver tenants;
  private final int maxClients;
  private final int maxClientsPerTenant;
  private final Duration heartbeat;
  private final AtomicInteger clients = new AtomicInteger();

  /** Streams open per tenant, of tokens scoped to it; an entry goes when its count returns to 0. */
  private final ConcurrentHashMap<String, Integer> perTenant = new ConcurrentHashMap<>();

  /**
   * @param readModel null when the node has none: the route answers 503
   * @param blocking where the journal's head is read
   */
  public EventsRoutes(ActorSystem<?> system, ReadModel readModel, Executor blocking, ApiAuth auth) {
    this(
        system,
        readModel,
        blocking,
        auth,
        system.settings().config().getInt(MAX_CLIENTS),
        system.settings().config().getInt(MAX_CLIENTS_PER_TENANT),
        HEARTBEAT);
  }

  /**
   * @param heartbeat how often an idle stream gets a comment; a client that went away is noticed at
   *     a write, so its place is given back within two heartbeats at the latest
   */
  EventsRoutes(
      ActorSystem<?> system,
      ReadModel readModel,
      Executor blocking,
      ApiAuth auth,
      int maxClients,
      int maxClientsPerTenant,
      Duration heartbeat) {
    if (maxClients < 1) {
      throw new IllegalArgumentException(MAX_CLIENTS + " must be at least 1: " + maxClients);
    }
    if (maxClientsPerTenant < 1) {
      throw new IllegalArgumentException(
          MAX_CLIENTS_PER_TENANT + " must be at least 1: " + maxClientsPerTenant);
    }
    this.system = system;
    this.readModel = readModel;
    this.blocking = blocking;
    this.auth = auth;
    this.tenants = new TenantResolver(TenantTables.get(system)::current);
    this.maxClients = maxClients;
    this.maxClientsPerTenant = maxClientsPerTenant;
    this.heartbeat = heartbeat;
  }

  public Route route() {
    return path(
        PathMatchers.segment("v1").slash("events"),
        () -> auth.requireCaller(Role.ADMIN, caller -> get(() -> events(caller))));
  }

  /** Streams open on this node now. */
  int clients() {
    return clients.get();
  }

  /**
   * The stream, as far as the caller may see: a token scoped to tenants sees its tenants' agents'
   * events only (no system or runner events, which belong to no tenant); {@code tenant} narrows it
   * to one tenant, and {@code agentId} names an agent of the request's tenant.
   */
  private Route events(Caller caller) {
    return parameterOptional(
        "tenant",
        tenantParam -> {
          boolean oneTenant = tenantParam.isPresent() && !tenantParam.get().isEmpty();
          String tenant = oneTenant ? tenants.tenantOf(caller, tenantParam) : null;
          return events(caller, tenant);
        });
  }

  private Route events(Caller caller, String tenantOrNull) {
    return optionalHeaderValueByName(
        "Last-Event-ID",
        lastEventId ->
            parameterOptional(
                "since",
                since ->
                    parameterOptional(
                        "agentId",
                        agentId ->
                            parameterOptional(
                                "types",
                                types ->
                                    events(
                                        lastEventId.or(() -> since),
                                        new Visible(
                                            caller,
                                            agentFilterTenant(caller, tenantOrNull, agentId),
                                            QueryParams.agentIdFilter(agentId)),
                                        types(types))))));
  }

  /** The tenant an {@code agentId} filter names its agent in: the request's (absent: default). */
  private String agentFilterTenant(Caller caller, String tenantOrNull, Optional<String> agentId) {
    if (tenantOrNull != null || agentId.isEmpty() || agentId.get().isEmpty()) {
      return tenantOrNull;
    }
    return tenants.tenantOf(caller, Optional.empty());
  }

  /** Which events a stream shows: the caller's tenants, then the tenant and agent asked for. */
  private record Visible(Caller caller, String tenant, String agentId) {
    /** The tenants whose agents' events the journal is asked for; empty: every event. */
    Set<String> tenants() {
      return tenant != null ? Set.of(tenant) : caller.tenants();
    }

    boolean shows(JsonNode event) {
      String eventTenant = event.path("tenant").asText(null);
      if (!caller.everyTenant() && (eventTenant == null || !caller.mayUse(eventTenant))) {
        return false;
      }
      if (tenant != null && !tenant.equals(eventTenant)) {
        return false;
      }
      return agentId == null || agentId.equals(event.path("agentId").asText(null));
    }
  }

  private Route events(Optional<String> resumeAfter, Visible visible, Set<String> types) {
    if (readModel == null) {
      throw ApiException.unavailable("this node has no event journal to follow; try another node");
    }
    Optional<Cursor> after =
        resumeAfter
            .filter(id -> !id.isBlank())
            .map(
                id ->
                    Cursor.parse(id)
                        .orElseThrow(
                            () ->
                                ApiException.invalid(
                                    "Last-Event-ID (or since) must be an event id of this stream,"
                                        + " such as 1042 or 1042.1")));
    Slot slot = reserve(visible.caller());
    CompletableFuture<Cursor> from = after.map(this::retained).orElseGet(this::now);
    return onComplete(
        from,
        cursor -> {
          if (cursor.isFailure()) {
            slot.release();
            throw unwrapped(cursor.failed().get());
          }
          return completeOK(
              stream(cursor.get(), visible, types, slot), EventStreamMarshalling.toEventStream());
        });
  }

  private static RuntimeException unwrapped(Throwable failure) {
    Throwable t = failure;
    while (t instanceof java.util.concurrent.CompletionException && t.getCause() != null) {
      t = t.getCause();
    }
    return t instanceof RuntimeException r ? r : new IllegalStateException(t);
  }

  private Source<ServerSentEvent, NotUsed> stream(
      Cursor after, Visible visible, Set<String> types, Slot slot) {
    // The journal is asked for the visible tenants' events only; the filter stays, as a second
    // wall and for the agent and types asked for.
    return EventFeed.after(system, after, visible.tenants())
        .filter(e -> visible.shows(e.event()))
        .filter(e -> types.isEmpty() || types.contains(e.event().get("type").asText()))
        .map(
            e ->
                ServerSentEvent.create(
                    e.event().toString(), e.event().get("type").asText(), e.cursor().toString()))
        .keepAlive(heartbeat, ServerSentEvent::heartbeat)
        .watchTermination(
            (notUsed, done) -> {
              slot.taken();
              done.whenComplete((d, failure) -> slot.release());
              return NotUsed.getInstance();
            });
  }

  /**
   * {@code after} if nothing after it was removed by retention (decision 124); 410 {@code gone}
   * with the oldest retained id otherwise, rather than a stream that skips what is gone.
   */
  private CompletableFuture<Cursor> retained(Cursor after) {
    return CompletableFuture.supplyAsync(
        () -> {
          JournalRetained retained;
          try {
            retained = readModel.journalRetained();
          } catch (ReadModelException e) {
            log.warn("journal unavailable: {}", e.getMessage(), e.getCause());
            throw ApiException.unavailable("the journal is not available; try again later");
          }
          if (after.ordering() < retained.removedThrough()) {
            throw ApiException.gone(
                "events after "
                    + after
                    + " were removed by retention (rota.journal.retention); the oldest retained is "
                    + retained.oldestRetained()
                    + ": resume with since="
                    + (retained.oldestRetained() - 1)
                    + ", or without since to start now",
                Long.toString(retained.oldestRetained()));
          }
          return after;
        },
        blocking);
  }

  /** The cursor of "now": after every event the journal holds. */
  private CompletableFuture<Cursor> now() {
    return CompletableFuture.supplyAsync(
        () -> {
          try {
            return new Cursor(readModel.journalHead(), Integer.MAX_VALUE);
          } catch (ReadModelException e) {
            log.warn("journal unavailable: {}", e.getMessage(), e.getCause());
            throw ApiException.unavailable("the journal is not available; try again later");
          }
        },
        blocking);
  }

  /**
   * One of the {@code max-clients} places, and for a token scoped to tenants one of each of its
   * tenants' {@code max-clients-per-tenant}, or 503.
   */
  private Slot reserve(Caller caller) {
    Set<String> scopes = caller.everyTenant() ? Set.of() : caller.tenants();
    List<String> counted = new ArrayList<>(scopes.size());
    for (String tenant : scopes) {
      if (perTenant.merge(tenant, 1, Integer::sum) > maxClientsPerTenant) {
        counted.add(tenant);
        counted.forEach(this::leave);
        throw ApiException.unavailable(
            "this node already streams events to "
                + maxClientsPerTenant
                + " clients of tenant '"
                + tenant
                + "' ("
                + MAX_CLIENTS_PER_TENANT
                + "); try again later or another node");
      }
      counted.add(tenant);
    }
    while (true) {
      int now = clients.get();
      if (now >= maxClients) {
        counted.forEach(this::leave);
        throw ApiException.unavailable(
            "this node already streams events to "
                + maxClients
                + " clients ("
                + MAX_CLIENTS
                + "); try again later or another node");
      }
      if (clients.compareAndSet(now, now + 1)) {
        Slot slot = new Slot(scopes);
        system
            .scheduler()
            .scheduleOnce(UNCLAIMED_SLOT, slot::releaseIfUnclaimed, system.executionContext());
        return slot;
      }
    }
  }

  private void leave(String tenant) {
    perTenant.computeIfPresent(tenant, (t, n) -> n <= 1 ? null : n - 1);
  }

  /** A reserved place: released once, when its stream ends or if no stream ever took it. */
  private final class Slot {
    private final Set<String> tenants;
    private final AtomicBoolean taken = new AtomicBoolean();
    private final AtomicBoolean released = new AtomicBoolean();

    Slot(Set<String> tenants) {
      this.tenants = tenants;
    }

    void taken() {
      taken.set(true);
    }

    void release() {
      if (released.compareAndSet(false, true)) {
        clients.decrementAndGet();
        tenants.forEach(EventsRoutes.this::leave);
      }
    }

    void releaseIfUnclaimed() {
      if (!taken.get()) {
        release();
      }
    }
  }

  private static Set<String> types(Optional<String> param) {
    Set<String> types = new LinkedHashSet<>();
    if (param.isEmpty() || param.get().isBlank()) {
      return types;
    }
    for (String type : Arrays.asList(param.get().split(","))) {
      String t = type.strip();
      if (!EventFeed.TYPES.contains(t)) {
        throw ApiException.invalid(
            "types must be a comma-separated list of " + String.join(", ", EventFeed.TYPES));
      }
      types.add(t);
    }
    return types;
  }
}
