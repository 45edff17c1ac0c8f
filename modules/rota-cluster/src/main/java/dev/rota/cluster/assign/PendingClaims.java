package dev.rota.cluster.assign;

import dev.rota.cluster.assign.WorkProtocol.RequestWork;
import dev.rota.core.model.ClaimSpec;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The claims a dispatcher has not answered yet: each by id, and those that wait for work in arrival
 * order. Claims that came before every partition published are held apart, unnumbered.
 */
final class PendingClaims {

  /** One claim the dispatcher has not answered. */
  static final class Pending {
    final long id;
    final RequestWork request;
    final long startedNanos;
    final long deadlineNanos;

    /** Agents asked for this claim since it last waited. */
    int tries;

    /** An agent is being asked for this claim now. */
    boolean claiming;

    /** The rule needs a partition's publication before it can rank for this claim. */
    boolean awaiting;

    /** The claim's wait ran out while an agent was being asked. */
    boolean expired;

    private Pending(long id, RequestWork request, Duration settle) {
      this.id = id;
      this.request = request;
      this.startedNanos = System.nanoTime();
      Duration wait = request.spec().maxWait();
      // Even a request that asked not to wait waits out the coordination window, so that work
      // acknowledged before it asked (a notification's 202) is published in time to be seen.
      this.deadlineNanos = startedNanos + Math.max(settle.toNanos(), wait.toNanos());
    }

    /** Claims of one kind are served in arrival order: a kind that does not fit waits as one. */
    String kind() {
      ClaimSpec claim = request.spec();
      return claim.tenants().isEmpty()
          ? claim.mode() + " " + claim.capabilities()
          : claim.mode() + " " + claim.capabilities() + " " + claim.tenants();
    }
  }

  private final Map<Long, Pending> pending = new HashMap<>();
  private final LinkedHashMap<Long, Pending> waiting = new LinkedHashMap<>();
  private final List<RequestWork> early = new ArrayList<>();
  private long nextId;

  Pending add(RequestWork request, Duration settle) {
    Pending p = new Pending(nextId++, request, settle);
    pending.put(p.id, p);
    return p;
  }

  /** The claim, or null once answered. */
  Pending get(long id) {
    return pending.get(id);
  }

  void park(Pending p) {
    waiting.put(p.id, p);
  }

  void unpark(Pending p) {
    waiting.remove(p.id);
  }

  /** The claim is answered: it is no longer pending nor waiting. */
  void remove(Pending p) {
    pending.remove(p.id);
    waiting.remove(p.id);
  }

  /** The waiting claims in arrival order, copied so that they can be answered meanwhile. */
  List<Pending> waiting() {
    return List.copyOf(waiting.values());
  }

  /** Holds a claim that came before every partition published. */
  void holdEarly(RequestWork request) {
    early.add(request);
  }

  /** The held claims, in arrival order; none are held after. */
  List<RequestWork> takeEarly() {
    List<RequestWork> held = List.copyOf(early);
    early.clear();
    return held;
  }
}
