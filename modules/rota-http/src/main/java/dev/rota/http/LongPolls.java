package dev.rota.http;

import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The requests of a node that wait in silence for an answer: claims with a wait ({@code POST
 * /v1/claims}, a report's {@code next}) and a runner's wait for new input ({@code POST
 * /v1/leases/{id}/input}). Past {@code rota.http.max-long-polls} of them at once on the node, or
 * {@code max-long-polls-per-token} of one token, another is answered 503 at once rather than
 * holding one more connection. A token is counted by its own entry ({@link Caller#id}), so tokens
 * written on one line of {@code ROTA_API_TOKENS} each have their own share; on a node without
 * tokens only the node's cap counts.
 */
final class LongPolls {
  private final int max;
  private final int maxPerToken;
  private final AtomicInteger waiting = new AtomicInteger();

  /** Long polls waiting per token entry; an entry goes when its count returns to 0. */
  private final ConcurrentHashMap<String, Integer> perToken = new ConcurrentHashMap<>();

  LongPolls(HttpSettings settings) {
    this(settings.maxLongPolls(), settings.maxLongPollsPerToken());
  }

  LongPolls(int max, int maxPerToken) {
    this.max = max;
    this.maxPerToken = maxPerToken;
  }

  /** A place held by one long poll until {@link #release}; releasing twice releases once. */
  final class Slot {
    private final String token;
    private final AtomicBoolean held = new AtomicBoolean(true);

    private Slot(String token) {
      this.token = token;
    }

    void release() {
      if (held.compareAndSet(true, false)) {
        free(token);
      }
    }
  }

  /** A place for one long poll of {@code caller}, or 503 {@code unavailable} when none is left. */
  Slot enter(Caller caller) {
    if (waiting.incrementAndGet() > max) {
      waiting.decrementAndGet();
      throw ApiException.unavailable(
          "this node already holds "
              + max
              + " waiting requests (rota.http.max-long-polls); try again later");
    }
    String token = caller.anonymous() ? null : caller.id();
    if (token != null && perToken.merge(token, 1, Integer::sum) > maxPerToken) {
      free(token);
      throw ApiException.unavailable(
          "this token already holds "
              + maxPerToken
              + " waiting requests on this node (rota.http.max-long-polls-per-token); try again"
              + " later");
    }
    return new Slot(token);
  }

  /** Long polls waiting on this node now. */
  int waiting() {
    return waiting.get();
  }

  private void free(String token) {
    waiting.decrementAndGet();
    if (token != null) {
      perToken.computeIfPresent(token, (t, n) -> n <= 1 ? null : n - 1);
    }
  }
}
