package dev.rota.bench.workload;

import dev.rota.bench.system.AgentIds;
import dev.rota.bench.system.ClaimedActivation;
import dev.rota.bench.system.Completion;
import dev.rota.bench.system.InboxSeed;
import dev.rota.bench.system.RunnerListener;
import java.util.concurrent.atomic.AtomicIntegerArray;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Remembers, agent by agent, the notifications completed activations read since the last {@link
 * #drain}, so that the backlog can be topped up with exactly what was read, where it was read: the
 * backlog's size and its spread over agents stay those of the level. Passes every report on.
 */
final class ReadBack implements RunnerListener {

  private final RunnerListener next;
  private final AtomicIntegerArray readPerAgent;
  private final AtomicLong outstanding = new AtomicLong();

  ReadBack(RunnerListener next, int agents) {
    this.next = next;
    this.readPerAgent = new AtomicIntegerArray(agents);
  }

  @Override
  public void onClaim(ClaimedActivation claim) {
    next.onClaim(claim);
  }

  @Override
  public void onComplete(Completion completion) {
    next.onComplete(completion);
    int agent = AgentIds.index(completion.agentId());
    if (agent >= 0 && agent < readPerAgent.length() && completion.notifications() > 0) {
      readPerAgent.addAndGet(agent, completion.notifications());
      outstanding.addAndGet(completion.notifications());
    }
  }

  /** Notifications read and not yet given back. */
  long outstanding() {
    return outstanding.get();
  }

  /** What was read since the last drain, per agent; forgets it. */
  InboxSeed drain() {
    int[] counts = new int[readPerAgent.length()];
    long total = 0;
    for (int i = 0; i < counts.length; i++) {
      counts[i] = readPerAgent.getAndSet(i, 0);
      total += counts[i];
    }
    outstanding.addAndGet(-total);
    return new InboxSeed(counts);
  }
}
