package dev.rota.faults.check;

import dev.rota.faults.history.Event;
import dev.rota.faults.history.Event.Granted;
import dev.rota.faults.history.Event.Outcome;
import dev.rota.faults.history.Event.Renewed;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Server times of nodes whose clocks ran off the machine's, mapped back to the machine's clock
 * (decision 65). Part of {@link HistoryChecker}.
 */
final class MachineClock {
  private MachineClock() {}

  /**
   * The history with every grant's and successful heartbeat's server times on the machine's clock:
   * each shifted by the node offset that puts the grant inside its claim's round trip (for a
   * heartbeat: the renewed lease's start, its expiry less the lease's length, inside the
   * heartbeat's round trip). A time no offset explains is left as it is.
   */
  static List<Event> map(List<Event> events, List<Long> offsets) {
    Map<String, Long> lengths = new HashMap<>();
    List<Event> mapped = new ArrayList<>(events.size());
    for (Event event : events) {
      if (event instanceof Granted g) {
        lengths.put(g.leaseId(), g.expiresAt() - g.grantedAt());
        long offset = offset(g.grantedAt(), g.startMs(), g.endMs(), offsets);
        mapped.add(
            new Granted(
                g.runnerId(),
                g.node(),
                g.leaseId(),
                g.agentId(),
                g.grantedAt() - offset,
                g.expiresAt() - offset,
                g.keys(),
                g.startMs(),
                g.endMs()));
      } else {
        mapped.add(event);
      }
    }
    for (int i = 0; i < mapped.size(); i++) {
      if (mapped.get(i) instanceof Renewed r
          && r.outcome() == Outcome.OK
          && lengths.containsKey(r.leaseId())) {
        long renewedAt = r.expiresAt() - lengths.get(r.leaseId());
        long offset = offset(renewedAt, r.startMs(), r.endMs(), offsets);
        mapped.set(
            i,
            new Renewed(r.leaseId(), r.startMs(), r.endMs(), r.outcome(), r.expiresAt() - offset));
      }
    }
    return mapped;
  }

  /** The offset that puts a server time inside the client's [start, end] (100 ms either side). */
  private static long offset(long serverTime, long start, long end, List<Long> offsets) {
    for (long offset : offsets) {
      long onMachine = serverTime - offset;
      if (onMachine >= start - 100 && onMachine <= end + 100) {
        return offset;
      }
    }
    return 0;
  }
}
