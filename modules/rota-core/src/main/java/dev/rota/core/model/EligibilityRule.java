package dev.rota.core.model;

import dev.rota.core.model.AgentState.Eligibility;
import java.time.Instant;
import java.util.Set;

/**
 * Which kind of activation an agent can give a runner now, or why not: the authoritative check a
 * grant passes after the coordinator's index picked the agent.
 */
final class EligibilityRule {
  private EligibilityRule() {}

  static Eligibility of(AgentState s, RunnerMode mode, Set<String> offered, Instant now) {
    if (!s.registered()) {
      return Eligibility.denied("not_registered");
    }
    if (s.paused()) {
      return Eligibility.denied("paused");
    }
    if (s.lease() != null) {
      return Eligibility.denied("leased");
    }
    if (s.isSnoozed(now)) {
      return Eligibility.denied("snoozed");
    }
    if (NewInputState.isDebouncing(s, now)) {
      return Eligibility.denied("debouncing");
    }
    if (!offered.containsAll(s.config().capabilities())) {
      return Eligibility.denied("capabilities");
    }
    if (!s.inbox().isEmpty()) {
      return mode.takesInbox()
          ? Eligibility.granted(ActivationKind.INBOX)
          : Eligibility.denied("has_inbox");
    }
    if (!mode.takesStaleness()) {
      return Eligibility.denied("no_inbox");
    }
    // A due schedule is an override: it does not wait for the minimum interval.
    Instant fire = s.nextFireAt();
    if (fire != null && !fire.isAfter(now)) {
      return Eligibility.granted(ActivationKind.SCHEDULED);
    }
    if (s.lastActivatedAt() != null
        && s.lastActivatedAt().plus(s.config().minActivationInterval()).isAfter(now)) {
      return Eligibility.denied("min_interval");
    }
    return Eligibility.granted(ActivationKind.EXPLORATION);
  }
}
