package dev.rota.faults.check;

import dev.rota.faults.history.Event;
import dev.rota.faults.history.Event.Carried;
import dev.rota.faults.history.Event.CompleteAttempt;
import dev.rota.faults.history.Event.DeadLetter;
import dev.rota.faults.history.Event.FinalInbox;
import dev.rota.faults.history.Event.Granted;
import dev.rota.faults.history.Event.Outcome;
import dev.rota.faults.history.Event.Sent;
import dev.rota.faults.history.Event.Sent.Send;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * Checks what agents sent each other in a fault run's history: sends, calls, replies and groups.
 * Pure, like {@link HistoryChecker}: it reads only the events (CallCheckerTest feeds it corrupted
 * histories).
 *
 * <p>A lease's completion is <i>accepted</i> when one of its attempts was answered 200, <i>maybe
 * applied</i> when none was but one went unanswered, and <i>refused</i> otherwise (every attempt
 * answered 410). A send is known by its payload's key ({@link Sent}); it is delivered when a turn
 * of its target carries that key ({@link Granted}), and counts as delivered once when one accepted
 * turn completes it. A call is known by the server's {@code callId} once its target's turn carried
 * it ({@link Carried}); a reply names the call it answers.
 *
 * <ul>
 *   <li><b>Every send of an accepted completion is delivered exactly once</b>, to its target: one
 *       accepted turn of the target completes it, or it was dead-lettered, or the target was not
 *       drained at the end (reported as such by {@link HistoryChecker}), or the last turn that
 *       carried it had a completion whose answer never came (it may have been completed there, as
 *       {@link HistoryChecker} counts a producer's key); a call may instead be answered failed or
 *       timed out, or never reach its target (its reply is checked below). A send of a completion
 *       maybe applied is delivered at most once.
 *   <li><b>Nothing is delivered from a refused completion</b>: no turn carries its sends.
 *   <li><b>Exactly one reply per call</b>: the caller completes one reply for each call of an
 *       accepted completion, never two (a reply carried last by a turn whose completion went
 *       unanswered may have been completed there). A call whose target never carried it has no
 *       known {@code callId} (its reply says failed or timed out): such calls are matched by number
 *       to the replies of unknown calls, per caller and target, so that a missing or a stray one
 *       still shows.
 *   <li><b>A group's replies arrive whole</b>: a caller's turn that carries any of a group's
 *       replies carries every one of them whose call is known.
 * </ul>
 */
public final class CallChecker {
  private CallChecker() {}

  private enum Fate {
    ACCEPTED,
    MAYBE,
    REFUSED
  }

  /** A reply as the caller completed it: by which lease of which agent. */
  private record Completed(String leaseId, String agentId, String from, String status) {}

  /** A reply's status, with its error's reason when it has one: {@code failed (undeliverable)}. */
  private static String statusOf(Carried.Reply r) {
    return r.reason() == null ? r.status() : r.status() + " (" + r.reason() + ")";
  }

  public static CallVerdict check(List<Event> history) {
    Map<String, Granted> grants = new HashMap<>();
    Map<String, List<CompleteAttempt>> attempts = new HashMap<>();
    List<Sent> sent = new ArrayList<>();
    List<Carried> carried = new ArrayList<>();
    Set<String> deadLettered = new HashSet<>();
    Set<String> undrained = new HashSet<>();
    for (Event event : history) {
      if (event instanceof Granted g) {
        grants.put(g.leaseId(), g);
      } else if (event instanceof CompleteAttempt c) {
        attempts.computeIfAbsent(c.leaseId(), l -> new ArrayList<>()).add(c);
      } else if (event instanceof Sent s) {
        sent.add(s);
      } else if (event instanceof Carried c) {
        carried.add(c);
      } else if (event instanceof DeadLetter d) {
        deadLettered.add(d.key());
      } else if (event instanceof FinalInbox f && (f.unread() != 0 || f.leased())) {
        undrained.add(f.agentId());
      }
    }
    Map<String, Fate> fates = new HashMap<>();
    for (String lease : grants.keySet()) {
      fates.put(lease, fate(attempts.getOrDefault(lease, List.of())));
    }

    // Which accepted turns completed each key, and which turns carried it at all.
    Map<String, List<Granted>> completedBy = new HashMap<>();
    Map<String, List<String>> carriedBy = new HashMap<>();
    for (Granted g : grants.values()) {
      for (String key : g.keys()) {
        carriedBy.computeIfAbsent(key, k -> new ArrayList<>()).add(g.leaseId());
        if (fates.get(g.leaseId()) == Fate.ACCEPTED) {
          completedBy.computeIfAbsent(key, k -> new ArrayList<>()).add(g);
        }
      }
    }

    // A key whose last carrying turn's completion went unanswered may have been completed there.
    Map<String, Granted> lastCarrier = new HashMap<>();
    for (Granted g : grants.values()) {
      g.keys()
          .forEach(key -> lastCarrier.merge(key, g, (x, y) -> x.startMs() >= y.startMs() ? x : y));
    }
    Set<String> maybeCompleted = new HashSet<>();
    lastCarrier.forEach(
        (key, g) -> {
          if (fates.get(g.leaseId()) == Fate.MAYBE) {
            maybeCompleted.add(key);
          }
        });

    // The target's view of each call, and the replies each caller completed (or maybe did).
    Map<String, String> callIdOfKey = new HashMap<>();
    Map<String, List<Completed>> replies = new TreeMap<>();
    Map<String, Completed> maybeReplies = new TreeMap<>();
    for (Carried c : carried) {
      c.calls().forEach(call -> callIdOfKey.put(call.key(), call.callId()));
      if (fates.get(c.leaseId()) == Fate.MAYBE) {
        c.replies()
            .forEach(
                r ->
                    maybeReplies.put(
                        r.callId(),
                        new Completed(c.leaseId(), c.agentId(), r.from(), statusOf(r))));
      }
      if (fates.get(c.leaseId()) != Fate.ACCEPTED) {
        continue;
      }
      Set<String> once = new HashSet<>();
      for (Carried.Reply r : c.replies()) {
        if (once.add(r.callId())) {
          replies
              .computeIfAbsent(r.callId(), id -> new ArrayList<>())
              .add(new Completed(c.leaseId(), c.agentId(), r.from(), statusOf(r)));
        }
      }
    }
    int sends = 0;
    int calls = 0;
    int refusedSends = 0;
    List<String> undelivered = new ArrayList<>();
    List<String> duplicates = new ArrayList<>();
    List<String> fromRefused = new ArrayList<>();
    for (Sent s : sent) {
      Fate fate = fates.getOrDefault(s.leaseId(), Fate.REFUSED);
      for (Send item : s.sends()) {
        List<Granted> by = completedBy.getOrDefault(item.key(), List.of());
        String what = item.key() + " (lease " + s.leaseId() + " to " + item.target() + ")";
        if (fate == Fate.REFUSED) {
          refusedSends++;
          if (carriedBy.containsKey(item.key())) {
            fromRefused.add(what + " carried by " + carriedBy.get(item.key()));
          }
          continue;
        }
        if (fate == Fate.ACCEPTED) {
          sends++;
          calls += item.call() ? 1 : 0;
        }
        by.stream()
            .filter(g -> !g.agentId().equals(item.target()))
            .forEach(g -> duplicates.add(what + " completed by " + g.agentId() + "'s lease"));
        if (by.size() > 1) {
          duplicates.add(
              what + " completed by leases " + by.stream().map(Granted::leaseId).toList());
        } else if (by.isEmpty()
            && fate == Fate.ACCEPTED
            && !deadLettered.contains(item.key())
            && !undrained.contains(item.target())
            && !maybeCompleted.contains(item.key())
            && !(item.call() && unanswerable(item.key(), callIdOfKey, replies))) {
          undelivered.add(
              what
                  + (carriedBy.containsKey(item.key())
                      ? ", carried by " + carriedBy.get(item.key())
                      : ", never carried"));
        }
      }
    }

    Set<String> knownCallIds = new HashSet<>(callIdOfKey.values());

    List<String> missing = new ArrayList<>();
    List<String> doubled = new ArrayList<>();
    List<String> strays = new ArrayList<>();
    // Calls without a known callId, per "caller -> target": those that must have a reply, and
    // those that may (their completion maybe applied).
    Map<String, Integer> unknownCalls = new TreeMap<>();
    Map<String, Integer> optionalCalls = new HashMap<>();
    for (Sent s : sent) {
      Fate fate = fates.getOrDefault(s.leaseId(), Fate.REFUSED);
      if (fate == Fate.REFUSED) {
        continue;
      }
      for (Send item : s.sends()) {
        if (!item.call()) {
          continue;
        }
        String callId = callIdOfKey.get(item.key());
        String pair = s.agentId() + " -> " + item.target();
        if (callId == null) {
          (fate == Fate.ACCEPTED ? unknownCalls : optionalCalls).merge(pair, 1, Integer::sum);
          continue;
        }
        List<Completed> got = replies.getOrDefault(callId, List.of());
        String what = "call " + callId + " (" + item.key() + ", " + pair + ")";
        if (got.size() > 1) {
          doubled.add(what + " replied by leases " + got.stream().map(Completed::leaseId).toList());
        } else if (got.isEmpty()
            && !undrained.contains(s.agentId())
            && !deadLettered.contains("reply:" + callId)
            && !maybeReplies.containsKey(callId)) {
          missing.add(what);
        }
        got.stream()
            .filter(r -> !r.agentId().equals(s.agentId()))
            .forEach(r -> strays.add(what + " answered to " + r.agentId()));
      }
    }
    // Replies to calls no target carried, matched by number per caller and target.
    Map<String, List<String>> unknownReplies = new TreeMap<>();
    replies.forEach(
        (callId, got) -> {
          if (knownCallIds.contains(callId)) {
            return;
          }
          Completed first = got.get(0);
          unknownReplies
              .computeIfAbsent(first.agentId() + " -> " + first.from(), p -> new ArrayList<>())
              .add(callId);
          if (got.size() > 1) {
            doubled.add(
                "call "
                    + callId
                    + " replied by leases "
                    + got.stream().map(Completed::leaseId).toList());
          }
        });
    Map<String, Integer> maybeUnknown = new HashMap<>();
    maybeReplies.forEach(
        (callId, r) -> {
          if (!knownCallIds.contains(callId) && !replies.containsKey(callId)) {
            maybeUnknown.merge(r.agentId() + " -> " + r.from(), 1, Integer::sum);
          }
        });
    Set<String> pairs = new TreeSet<>(unknownCalls.keySet());
    pairs.addAll(unknownReplies.keySet());
    for (String pair : pairs) {
      int expected = unknownCalls.getOrDefault(pair, 0);
      int optional = optionalCalls.getOrDefault(pair, 0);
      List<String> got = unknownReplies.getOrDefault(pair, List.of());
      if (got.size() > expected + optional) {
        strays.add(pair + ": replies " + got + " to " + (expected + optional) + " calls");
      } else if (got.size() + maybeUnknown.getOrDefault(pair, 0) < expected
          && !undrained.contains(pair.split(" -> ")[0])) {
        missing.add(pair + ": " + (expected - got.size()) + " of " + expected + " calls");
      }
    }

    // Groups: a caller's turn carries all of a group's known replies, or none.
    int groups = 0;
    int groupsDelivered = 0;
    List<String> broken = new ArrayList<>();
    for (Sent s : sent) {
      Fate fate = fates.getOrDefault(s.leaseId(), Fate.REFUSED);
      if (fate == Fate.REFUSED) {
        continue;
      }
      Map<String, List<String>> members = new LinkedHashMap<>();
      s.sends().stream()
          .filter(item -> item.call() && item.group() != null)
          .forEach(
              item ->
                  members
                      .computeIfAbsent(item.group(), g -> new ArrayList<>())
                      .add(callIdOfKey.get(item.key())));
      for (Map.Entry<String, List<String>> group : members.entrySet()) {
        groups += fate == Fate.ACCEPTED ? 1 : 0;
        Set<String> known = new TreeSet<>();
        group.getValue().stream().filter(id -> id != null).forEach(known::add);
        boolean whole = known.size() == group.getValue().size();
        boolean delivered = false;
        for (Carried c : carried) {
          if (!c.agentId().equals(s.agentId())) {
            continue;
          }
          Set<String> here = new TreeSet<>();
          c.replies().stream()
              .map(Carried.Reply::callId)
              .filter(known::contains)
              .forEach(here::add);
          if (!here.isEmpty() && !here.equals(known)) {
            broken.add(
                "group "
                    + group.getKey()
                    + " of lease "
                    + s.leaseId()
                    + ": lease "
                    + c.leaseId()
                    + " carried "
                    + here
                    + " of "
                    + known);
          } else if (!here.isEmpty() && whole && fates.get(c.leaseId()) == Fate.ACCEPTED) {
            delivered = true;
          }
        }
        groupsDelivered += delivered && fate == Fate.ACCEPTED ? 1 : 0;
      }
    }

    Map<String, Integer> byStatus = new TreeMap<>();
    replies.values().forEach(got -> byStatus.merge(got.get(0).status(), 1, Integer::sum));
    return new CallVerdict(
        sends,
        calls,
        refusedSends,
        byStatus,
        groups,
        groupsDelivered,
        undelivered,
        duplicates,
        fromRefused,
        missing,
        doubled,
        strays,
        broken);
  }

  /**
   * A call its target may rightly never complete: one whose target never carried it (its reply,
   * checked below, says why), or whose reply says it failed or timed out.
   */
  private static boolean unanswerable(
      String key, Map<String, String> callIdOfKey, Map<String, List<Completed>> replies) {
    String callId = callIdOfKey.get(key);
    return callId == null
        || replies.getOrDefault(callId, List.of()).stream()
            .anyMatch(r -> !"answered".equals(r.status()));
  }

  private static Fate fate(List<CompleteAttempt> attempts) {
    if (attempts.stream().anyMatch(c -> c.outcome() == Outcome.OK)) {
      return Fate.ACCEPTED;
    }
    if (attempts.stream().anyMatch(c -> c.outcome() == Outcome.FAILED)) {
      return Fate.MAYBE;
    }
    return Fate.REFUSED;
  }
}
