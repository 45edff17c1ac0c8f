package dev.rota.cluster.health;

import dev.rota.cluster.CborSerializable;
import java.util.HashMap;
import java.util.Map;

/**
 * The runner health singleton's state: every runner blocked now, and the scope each degradation
 * counts under ({@link BlockCaps}).
 *
 * @param blocks every runner blocked now
 * @param scopes the scope each degradation counts against, for those that count against one
 */
public record BlockedRunners(Map<String, RunnerBlock> blocks, Map<String, String> scopes)
    implements CborSerializable {
  public BlockedRunners {
    blocks = Map.copyOf(blocks);
    scopes = Map.copyOf(scopes);
  }

  BlockedRunners with(String runnerId, RunnerBlock block) {
    return with(runnerId, block, null);
  }

  BlockedRunners with(String runnerId, RunnerBlock block, String scope) {
    Map<String, RunnerBlock> next = new HashMap<>(blocks);
    Map<String, String> nextScopes = new HashMap<>(scopes);
    nextScopes.remove(runnerId);
    if (block == null) {
      next.remove(runnerId);
    } else {
      next.put(runnerId, block);
      if (scope != null) {
        nextScopes.put(runnerId, scope);
      }
    }
    return new BlockedRunners(next, nextScopes);
  }
}
