package dev.rota.cluster.testing;

import com.typesafe.config.Config;
import com.typesafe.config.ConfigFactory;

/** Config for a single-node cluster on loopback with the in-memory journal and snapshot store. */
public final class ClusterTestConfig {
  private ClusterTestConfig() {}

  public static Config inMemory(String extra) {
    return ConfigFactory.parseString(
            extra
                + "\n"
                + """
                pekko.actor.provider = cluster
                pekko.remote.artery.canonical.hostname = 127.0.0.1
                pekko.remote.artery.canonical.port = 0
                pekko.cluster.jmx.multi-mbeans-in-same-jvm = on
                pekko.loglevel = INFO
                """)
        .withFallback(
            org.apache.pekko.persistence.testkit.PersistenceTestKitPlugin.getInstance().config())
        .withFallback(
            org.apache.pekko.persistence.testkit.PersistenceTestKitSnapshotPlugin.config())
        .withFallback(ConfigFactory.load())
        .resolve();
  }
}
