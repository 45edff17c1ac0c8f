package dev.rota.cluster.assign;

import dev.rota.core.scheduling.HeadsBoard;
import java.util.HashMap;
import java.util.Map;

/**
 * The agents a dispatcher does not rank although the board shows them: one it claimed or was
 * denied, until its partition publishes a newer version of it (so concurrent claims get the
 * next-best agents rather than the same one), and one that turned a runner away for retry
 * avoidance, for that runner only and for a moment.
 */
final class HiddenAgents {
  /**
   * An agent this dispatcher claimed or was denied: heads of it at {@code upTo} or older are stale.
   * {@link Long#MAX_VALUE} while the claim is in flight or its outcome unknown.
   */
  private record Hidden(long upTo, long sinceNanos) {}

  /** An agent that turned {@code runnerId} away: not ranked for it before {@code untilNanos}. */
  private record Avoided(String runnerId, long untilNanos) {}

  private final Map<String, Hidden> hidden = new HashMap<>();
  private final Map<String, Avoided> avoided = new HashMap<>();

  /** Whether {@code head} may be ranked for {@code runnerId} at {@code nowNanos}. */
  boolean usable(HeadsBoard.Head head, String runnerId, long nowNanos) {
    String agentId = head.agent().agentId();
    Hidden h = hidden.get(agentId);
    if (h != null && head.version() <= h.upTo()) {
      return false;
    }
    Avoided a = avoided.get(agentId);
    return a == null || !a.runnerId().equals(runnerId) || nowNanos >= a.untilNanos();
  }

  /** Hides the agent until its partition shows a version newer than {@code upTo}. */
  void hide(String agentId, long upTo, long nowNanos) {
    hidden.put(agentId, new Hidden(upTo, nowNanos));
  }

  /** Hides the agent until its partition shows any newer version of it. */
  void hideUntilNewer(String agentId, long nowNanos) {
    hide(agentId, Long.MAX_VALUE, nowNanos);
  }

  /**
   * Ranks the agent again: what it was hidden for does not hold (its tenant turned a claim away).
   */
  void show(String agentId) {
    hidden.remove(agentId);
  }

  /** The agent turned {@code runnerId} away: it stays visible to every other runner. */
  void avoid(String agentId, String runnerId, long untilNanos) {
    hidden.remove(agentId);
    avoided.put(agentId, new Avoided(runnerId, untilNanos));
  }

  /** Forgets agents hidden before {@code cutoffNanos}; a stale head of one costs a denial. */
  void forgetHiddenBefore(long cutoffNanos) {
    hidden.values().removeIf(h -> h.sinceNanos() < cutoffNanos);
  }

  /** Forgets avoidances run out by {@code nowNanos}; true while some remain. */
  boolean forgetAvoidedBy(long nowNanos) {
    avoided.values().removeIf(a -> a.untilNanos() <= nowNanos);
    return !avoided.isEmpty();
  }
}
