package dev.rota.cluster.system;

import com.typesafe.config.Config;
import java.time.Duration;
import java.util.Optional;
import org.apache.pekko.actor.typed.ActorSystem;
import org.apache.pekko.actor.typed.Extension;
import org.apache.pekko.actor.typed.ExtensionId;
import org.apache.pekko.cluster.Cluster;
import org.apache.pekko.cluster.Member;
import org.apache.pekko.cluster.MemberStatus;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Keeps a zombie node from writing (decision 15). A node may write events (grant, renew, complete,
 * rescue, anything an entity or singleton persists) only while, in its own view, it is an {@code
 * Up} member (or {@code Leaving}/{@code Exiting}, handing over gracefully) that no member reports
 * unreachable, and it has not just been paused.
 *
 * <p>The pause check closes the window a frozen node has when it resumes (SIGSTOP, a stalled VM, a
 * very long GC): its own view still says every member is Up and reachable until the cluster's
 * gossip or quarantine reaches it, although the others may have downed it long ago and moved its
 * agents. A ticker notes the time every {@value #TICK_MS} ms; a gap longer than {@code
 * rota.cluster.write-guard.pause-threshold} between ticks (or a tick overdue by that much, checked
 * at the moment of writing, so that a write racing the ticker after a resume is refused too) closes
 * writes for {@code rota.cluster.write-guard.quiet-after-pause}, time for the node to learn that it
 * was downed. The journal asks {@link #refusal()} right before each write; the journal's primary
 * key stays as the last line of defence.
 *
 * <p>An actor system that is not a cluster (a local test system) is never refused.
 */
public final class WriteGuard implements Extension {
  private static final Logger log = LoggerFactory.getLogger(WriteGuard.class);
  static final long TICK_MS = 100;

  private final Cluster cluster;
  private final long pauseThresholdNanos;
  private final long quietNanos;
  private volatile long lastTick = System.nanoTime();
  // nanoTime values compare only by difference; "closed until now" is open.
  private volatile long closedUntil = System.nanoTime();
  private volatile boolean running = true;

  private WriteGuard(ActorSystem<?> system) {
    Config config = system.settings().config().getConfig("rota.cluster.write-guard");
    this.pauseThresholdNanos = config.getDuration("pause-threshold").toNanos();
    this.quietNanos = config.getDuration("quiet-after-pause").toNanos();
    boolean clustered =
        "cluster".equals(system.settings().config().getString("pekko.actor.provider"));
    this.cluster = clustered ? Cluster.get(system.classicSystem()) : null;
    if (clustered) {
      Thread ticker = new Thread(this::tick, "rota-write-guard");
      ticker.setDaemon(true);
      ticker.start();
      system.getWhenTerminated().thenRun(() -> running = false);
    }
  }

  public static WriteGuard get(ActorSystem<?> system) {
    return Id.INSTANCE.apply(system);
  }

  private void tick() {
    while (running) {
      try {
        Thread.sleep(TICK_MS);
      } catch (InterruptedException e) {
        return;
      }
      long now = System.nanoTime();
      long gap = now - lastTick;
      if (gap > pauseThresholdNanos) {
        closedUntil = now + quietNanos;
        log.warn(
            "this node was paused for {} ms; refusing writes for {} ms while the cluster tells"
                + " it whether it is still a member",
            Duration.ofNanos(gap).toMillis(),
            Duration.ofNanos(quietNanos).toMillis());
      }
      lastTick = now;
    }
  }

  /** Why this node may not write now, or empty if it may. */
  public Optional<String> refusal() {
    if (cluster == null) {
      return Optional.empty();
    }
    if (alone()) {
      // No other member could have downed this node and taken its agents over meanwhile: a
      // pause (or a loaded machine's stall) is no reason to refuse a single node's writes.
      return Optional.empty();
    }
    long now = System.nanoTime();
    long overdue = now - lastTick;
    if (overdue > pauseThresholdNanos) {
      return Optional.of(
          "this node has been paused (" + Duration.ofNanos(overdue).toMillis() + " ms)");
    }
    if (now - closedUntil < 0) {
      return Optional.of("this node resumed from a pause moments ago and may have been downed");
    }
    Member self = cluster.selfMember();
    MemberStatus status = self.status();
    boolean member =
        status == MemberStatus.up()
            || status == MemberStatus.leaving()
            || status == MemberStatus.exiting();
    if (!member) {
      return Optional.of("this node is " + status + ", not an Up member, in its own view");
    }
    if (cluster.state().getUnreachable().contains(self)) {
      return Optional.of("this node is reported unreachable in its own view");
    }
    return Optional.empty();
  }

  /** Whether this node is the only member it knows of, and up. */
  private boolean alone() {
    var members = cluster.state().getMembers();
    int count = 0;
    for (Member m : members) {
      count++;
      if (count > 1) {
        return false;
      }
    }
    return count == 1 && cluster.selfMember().status() == MemberStatus.up();
  }

  /** The extension's id. */
  public static final class Id extends ExtensionId<WriteGuard> {
    static final Id INSTANCE = new Id();

    @Override
    public WriteGuard createExtension(ActorSystem<?> system) {
      return new WriteGuard(system);
    }
  }
}
