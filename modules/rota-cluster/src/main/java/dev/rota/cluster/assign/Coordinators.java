package dev.rota.cluster.assign;

import java.util.Optional;
import java.util.concurrent.atomic.AtomicReferenceArray;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.ActorSystem;
import org.apache.pekko.actor.typed.javadsl.Behaviors;
import org.apache.pekko.actor.typed.receptionist.Receptionist;
import org.apache.pekko.actor.typed.receptionist.ServiceKey;

/**
 * This node's view of where each partition's coordinator lives, kept current from the receptionist.
 * Reads are lock-free, so entities can push changes and the dispatcher can route requests without
 * asking an actor first. A partition whose coordinator is not (yet) known is treated as empty; the
 * coordinator's periodic reconciliation repairs pushes lost meanwhile.
 */
public final class Coordinators {
  /** Changes pushed while a partition's coordinator is not known yet, delivered once it is. */
  private static final int MAX_HELD = 100_000;

  private final AtomicReferenceArray<ActorRef<Coordinator.Command>> refs;
  private final java.util.List<java.util.concurrent.ConcurrentLinkedQueue<Coordinator.Command>>
      held;

  private Coordinators(int partitions) {
    this.refs = new AtomicReferenceArray<>(partitions);
    this.held = new java.util.ArrayList<>(partitions);
    for (int p = 0; p < partitions; p++) {
      held.add(new java.util.concurrent.ConcurrentLinkedQueue<>());
    }
  }

  public static ServiceKey<Coordinator.Command> serviceKey(int partition) {
    return ServiceKey.create(Coordinator.Command.class, "rota-coordinator-" + partition);
  }

  /** Starts following the receptionist for every partition on this node. */
  public static Coordinators track(ActorSystem<?> system, int partitions) {
    Coordinators coordinators = new Coordinators(partitions);
    system.systemActorOf(
        Behaviors.<Receptionist.Listing>setup(
            ctx -> {
              for (int p = 0; p < partitions; p++) {
                ctx.getSystem()
                    .receptionist()
                    .tell(Receptionist.subscribe(serviceKey(p), ctx.getSelf()));
              }
              return Behaviors.receiveMessage(
                  listing -> {
                    coordinators.update(listing);
                    return Behaviors.same();
                  });
            }),
        "rota-coordinator-directory",
        org.apache.pekko.actor.typed.Props.empty());
    return coordinators;
  }

  @SuppressWarnings("unchecked")
  private void update(Receptionist.Listing listing) {
    String id = listing.getKey().id();
    int partition = Integer.parseInt(id.substring(id.lastIndexOf('-') + 1));
    var instances = listing.getServiceInstances((ServiceKey<Coordinator.Command>) listing.getKey());
    // During a hand-over two may be listed for a moment; any of them will do, the old one stops.
    refs.set(partition, instances.isEmpty() ? null : instances.iterator().next());
    flush(partition);
  }

  /** The listener agents use to push every change to their partition's coordinator. */
  public dev.rota.cluster.agent.AgentChangeListener pushingListener() {
    return (state, seqNr) ->
        deliver(
            dev.rota.core.model.Partitions.of(state.agentId(), partitions()),
            Coordinator.AgentChanged.of(state, seqNr));
  }

  /**
   * Tells the partition's coordinator, or holds the message until it is known (at start-up the
   * agents may push before the receptionist has listed the coordinators).
   */
  private void deliver(int partition, Coordinator.Command message) {
    ActorRef<Coordinator.Command> ref = refs.get(partition);
    if (ref != null) {
      ref.tell(message);
      return;
    }
    var queue = held.get(partition);
    queue.add(message);
    if (queue.size() > MAX_HELD) {
      queue.poll(); // the periodic reconciliation repairs what is dropped here
    }
    // The coordinator may have become known while we queued.
    flush(partition);
  }

  private void flush(int partition) {
    ActorRef<Coordinator.Command> ref = refs.get(partition);
    if (ref == null) {
      return;
    }
    Coordinator.Command message;
    while ((message = held.get(partition).poll()) != null) {
      ref.tell(message);
    }
  }

  /** Whether every partition's coordinator is known. */
  public boolean allKnown() {
    for (int p = 0; p < refs.length(); p++) {
      if (refs.get(p) == null) {
        return false;
      }
    }
    return true;
  }

  public int partitions() {
    return refs.length();
  }

  public Optional<ActorRef<Coordinator.Command>> of(int partition) {
    return Optional.ofNullable(refs.get(partition));
  }

  /** Test and single-process wiring: set a coordinator directly. */
  public static Coordinators fixed(java.util.List<ActorRef<Coordinator.Command>> coordinators) {
    Coordinators c = new Coordinators(coordinators.size());
    for (int i = 0; i < coordinators.size(); i++) {
      c.refs.set(i, coordinators.get(i));
    }
    return c;
  }
}
