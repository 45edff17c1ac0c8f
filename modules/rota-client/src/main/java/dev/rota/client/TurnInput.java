package dev.rota.client;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.Iterator;
import java.util.List;
import java.util.NoSuchElementException;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

/**
 * New input for a running turn: the notifications steered into its lease while it runs ({@code
 * newInput: steer}), each once, in order. Those the handler takes (drained, polled, iterated or
 * handed to its callback) are the turn's: completing it completes them. Any it never takes, even
 * one that reached the runner, stay unread for the next turn: the report names the ones taken
 * ({@code inputSeen}), so a notification steered in after the handler's last look is never
 * completed unseen.
 *
 * <p>Read it the way the handler works: {@link #drain()} between steps, {@link #poll(Duration)} to
 * wait for the next one, iterate ({@link #iterator()} blocks until the next notification or the
 * turn's end), or register a callback with {@link #onInput(Consumer)}.
 *
 * <pre>{@code
 * Outcome handle(Activation a) {
 *   var chat = startChat(a.assignment().notifications());
 *   while (!chat.done()) {
 *     a.input().drain().forEach(chat::addUserMessage); // the person wrote again
 *     chat.step();
 *   }
 *   return Outcome.complete();
 * }
 * }</pre>
 */
public final class TurnInput implements Iterable<Assignment.Item> {
  private static final Assignment.Item END = new Assignment.Item("", "", null, null, 0);

  private final LinkedBlockingQueue<Assignment.Item> queue = new LinkedBlockingQueue<>();
  private final Set<String> seen = new HashSet<>();
  private final List<String> taken = new ArrayList<>();
  private Consumer<Assignment.Item> callback;
  private boolean ended;

  /** New input arrived (from the input long poll or a heartbeat's answer); repeats are dropped. */
  void offer(List<Assignment.Item> items) {
    for (Assignment.Item item : items) {
      Consumer<Assignment.Item> to;
      synchronized (this) {
        if (ended || !seen.add(item.notificationId())) {
          continue;
        }
        to = callback;
        if (to == null) {
          queue.add(item);
          continue;
        }
        taken.add(item.notificationId());
      }
      to.accept(item);
    }
  }

  /** The ids of the notifications the handler took, in order: the report's {@code inputSeen}. */
  synchronized List<String> taken() {
    return List.copyOf(taken);
  }

  private synchronized Assignment.Item took(Assignment.Item item) {
    if (item != null && item != END) {
      taken.add(item.notificationId());
    }
    return item;
  }

  /** The turn ended: iterators stop waiting. */
  synchronized void end() {
    ended = true;
    queue.add(END);
  }

  /** Every notification that arrived and was not taken yet, without waiting. */
  public List<Assignment.Item> drain() {
    List<Assignment.Item> out = new ArrayList<>();
    queue.drainTo(out);
    if (out.remove(END)) {
      queue.add(END);
    }
    out.forEach(this::took);
    return out;
  }

  /**
   * The next notification, waiting up to {@code timeout}; empty when none came or the turn ended.
   */
  public Optional<Assignment.Item> poll(Duration timeout) throws InterruptedException {
    Assignment.Item item = took(queue.poll(timeout.toNanos(), TimeUnit.NANOSECONDS));
    if (item == END) {
      queue.add(END);
      return Optional.empty();
    }
    return Optional.ofNullable(item);
  }

  /**
   * Hands every notification to {@code callback} as it arrives (on the runner's thread that
   * received it), those already waiting first. The callback must be quick and thread-safe.
   */
  public void onInput(Consumer<Assignment.Item> callback) {
    List<Assignment.Item> waiting;
    synchronized (this) {
      this.callback = callback;
      waiting = drain();
    }
    waiting.forEach(callback);
  }

  /** Blocks for each next notification; ends when the turn ends (or the thread is interrupted). */
  @Override
  public Iterator<Assignment.Item> iterator() {
    return new Iterator<>() {
      private Assignment.Item next;

      @Override
      public boolean hasNext() {
        if (next == null) {
          try {
            next = queue.take();
          } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            next = END;
          }
        }
        if (next == END) {
          queue.add(END);
          return false;
        }
        return true;
      }

      @Override
      public Assignment.Item next() {
        if (!hasNext()) {
          throw new NoSuchElementException();
        }
        Assignment.Item item = next;
        next = null;
        return took(item);
      }
    };
  }
}
