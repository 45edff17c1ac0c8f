package dev.rota.faults.harness;

import java.util.List;
import java.util.concurrent.ThreadLocalRandom;

/**
 * The policies of a workload with mixed new input during a turn ({@code rota.faults.new-input=
 * mixed}): the agents say {@code queue}, {@code steer}, {@code interrupt} and {@code reject} in
 * turn, and each notification draws its own at random, or none (the agent's then), with equal odds.
 * A rejected publish (409) is recorded as such, not as a failure, and sent again with its key.
 */
final class NewInputMix {
  private static final List<String> POLICIES = List.of("queue", "steer", "interrupt", "reject");

  private NewInputMix() {}

  /** The {@code newInput} of the workload's agent number {@code index}. */
  static String ofAgent(int index) {
    return POLICIES.get(index % POLICIES.size());
  }

  /** A notification's own {@code newInput}, or null for the agent's. */
  static String ofNotification() {
    int draw = ThreadLocalRandom.current().nextInt(POLICIES.size() + 1);
    return draw == POLICIES.size() ? null : POLICIES.get(draw);
  }
}
