package dev.rota.cluster.runner;

import dev.rota.cluster.runner.RunnerSettings.PoolSettings;
import java.util.TreeMap;
import org.apache.pekko.actor.typed.ActorRef;

/**
 * One pool of a {@link RunnerPool}: its runners by number; stopping ones stay until they terminate,
 * so a new runner never takes the number of one still finishing.
 */
final class PoolRunners {
  final PoolSettings settings;
  final Executor executor;
  int desired;
  final TreeMap<Integer, ActorRef<Runner.Command>> active = new TreeMap<>();
  final TreeMap<Integer, ActorRef<Runner.Command>> stopping = new TreeMap<>();

  PoolRunners(PoolSettings settings, Executor executor) {
    this.settings = settings;
    this.executor = executor;
  }

  int freeIndex() {
    int i = 1;
    while (active.containsKey(i) || stopping.containsKey(i)) {
      i++;
    }
    return i;
  }
}
