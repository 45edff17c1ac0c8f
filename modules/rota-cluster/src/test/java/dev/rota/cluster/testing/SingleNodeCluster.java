package dev.rota.cluster.testing;

import com.typesafe.config.Config;
import com.typesafe.config.ConfigFactory;
import java.time.Duration;
import org.apache.pekko.actor.testkit.typed.javadsl.TestProbe;
import org.apache.pekko.actor.typed.ActorSystem;
import org.apache.pekko.cluster.MemberStatus;
import org.apache.pekko.cluster.typed.Cluster;
import org.apache.pekko.cluster.typed.Join;

/** A one-node cluster on loopback, for tests that need sharding and singletons. */
public final class SingleNodeCluster {
  private SingleNodeCluster() {}

  /** Cluster provider on a free loopback port. */
  public static Config config() {
    return ConfigFactory.parseString(
        String.join(
            "\n",
            "pekko.actor.provider = cluster",
            "pekko.remote.artery.canonical.hostname = 127.0.0.1",
            "pekko.remote.artery.canonical.port = 0",
            "pekko.cluster.jmx.multi-mbeans-in-same-jvm = on",
            "pekko.coordinated-shutdown.exit-jvm = off",
            "pekko.cluster.sharding.distributed-data.durable.keys = []",
            // Leaving hands over shards and singletons; on a busy build machine
            // that can take longer than the test kit's default 10 s.
            "pekko.actor.testkit.typed.system-shutdown-default = 30s"));
  }

  /** Joins the system to itself and waits until it is up. */
  public static void join(ActorSystem<?> system) {
    Cluster cluster = Cluster.get(system);
    cluster.manager().tell(Join.create(cluster.selfMember().address()));
    TestProbe<Object> probe = TestProbe.create(system);
    probe.awaitAssert(
        Duration.ofSeconds(10),
        () -> {
          if (cluster.selfMember().status() != MemberStatus.up()) {
            throw new AssertionError("not up yet: " + cluster.selfMember().status());
          }
          return null;
        });
  }
}
