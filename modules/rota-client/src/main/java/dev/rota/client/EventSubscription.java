package dev.rota.client;

import java.util.function.Consumer;

/**
 * An {@link EventStream} followed on a thread of its own ({@link RotaClient#subscribe}). The thread
 * ends when the subscription or the client is closed, or when the stream fails in a way a reconnect
 * cannot cure ({@link #failure()}). A listener that throws does not end it.
 */
public final class EventSubscription implements AutoCloseable {
  private static final System.Logger LOG = System.getLogger(EventSubscription.class.getName());

  private final EventStream stream;
  private final Thread thread;
  private final Consumer<EventSubscription> onClose;
  private volatile RuntimeException failure;

  EventSubscription(
      EventStream stream, Consumer<RotaEvent> listener, Consumer<EventSubscription> onClose) {
    this.stream = stream;
    this.onClose = onClose;
    this.thread = new Thread(() -> follow(listener), "rota-events");
    thread.setDaemon(true);
    thread.start();
  }

  private void follow(Consumer<RotaEvent> listener) {
    try {
      while (stream.hasNext()) {
        RotaEvent event = stream.next();
        try {
          listener.accept(event);
        } catch (RuntimeException e) {
          LOG.log(System.Logger.Level.WARNING, "event listener failed on " + event.type(), e);
        }
      }
    } catch (RuntimeException e) {
      failure = e;
    }
  }

  /** The error that ended the subscription, or null. */
  public RuntimeException failure() {
    return failure;
  }

  /** The stream's id of the last event delivered. */
  public String lastEventId() {
    return stream.lastEventId();
  }

  public boolean isRunning() {
    return thread.isAlive();
  }

  /** Stops following and waits (up to 5 s) for the thread to end. */
  @Override
  public void close() {
    stream.close();
    onClose.accept(this);
    if (Thread.currentThread() != thread) {
      try {
        thread.join(5_000);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }
  }
}
