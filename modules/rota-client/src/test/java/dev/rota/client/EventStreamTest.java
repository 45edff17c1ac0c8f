package dev.rota.client;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.sun.net.httpserver.HttpServer;
import dev.rota.client.testing.RealNode;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/** The event stream: against a real node, and its resumption against a scripted SSE server. */
@ExtendWith(RealNode.class)
class EventStreamTest {

  @Test
  void followsTheNodesEventsOnAThreadItStops() throws Exception {
    BlockingQueue<RotaEvent> received = new LinkedBlockingQueue<>();
    String id = "agent-" + UUID.randomUUID();
    try (RotaClient client = RotaClient.builder(RealNode.uri()).build()) {
      EventSubscription subscription =
          client.subscribe(
              EventQuery.all(),
              event -> {
                if (id.equals(event.agentId())) {
                  received.add(event);
                }
              });
      client.registerAgent(id, AgentSpec.create().capabilities("cap-" + id));
      // The stream starts at the journal's head when the request arrives; notify until seen.
      RotaEvent accepted = null;
      for (int i = 0; i < 20 && accepted == null; i++) {
        client.notify(id, Notification.of("mention").dedupeKey("k" + i));
        accepted = received.poll(1, TimeUnit.SECONDS);
      }
      assertTrue(accepted != null, "a notification.accepted event for " + id);
      assertEquals("notification.accepted", accepted.type());
      assertTrue(accepted.at() != null);
      assertTrue(subscription.isRunning());

      client.close(); // closes the subscription too
      assertFalse(subscription.isRunning());
      assertNull(subscription.failure());
    }
  }

  @Test
  void closingUnblocksAWaitingIterator() throws Exception {
    try (RotaClient client = RotaClient.builder(RealNode.uri()).build()) {
      EventStream stream = client.events(EventQuery.all().types("system.paused"));
      Thread closer = new Thread(() -> sleepThen(300, stream::close));
      closer.start();
      assertFalse(stream.hasNext());
      closer.join();
    }
  }

  @Test
  void reconnectsAndResumesAfterTheLastEventId() throws Exception {
    List<String> lastEventIds = new CopyOnWriteArrayList<>();
    HttpServer server =
        HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
    server.createContext(
        "/v1/events",
        exchange -> {
          String last = exchange.getRequestHeaders().getFirst("Last-Event-ID");
          lastEventIds.add(String.valueOf(last));
          String body =
              last == null
                  ? event("1", "notification.accepted")
                      + ": heartbeat\n\n"
                      + event("2", "lease.granted")
                  : event("3", "activation.completed");
          exchange.getResponseHeaders().add("Content-Type", "text/event-stream");
          byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
          exchange.sendResponseHeaders(200, bytes.length);
          try (OutputStream out = exchange.getResponseBody()) {
            out.write(bytes); // then the connection ends, as a dropped one would
          }
        });
    server.start();
    try (RotaClient client =
            RotaClient.builder(URI.create("http://127.0.0.1:" + server.getAddress().getPort()))
                .build();
        EventStream stream = client.events(EventQuery.all())) {
      List<String> seen = new ArrayList<>();
      for (int i = 0; i < 3; i++) {
        RotaEvent event = stream.next();
        seen.add(event.id() + " " + event.type() + " " + event.agentId());
      }
      assertEquals(
          List.of("1 notification.accepted a1", "2 lease.granted a1", "3 activation.completed a1"),
          seen);
      assertEquals("null", lastEventIds.get(0));
      assertEquals("2", lastEventIds.get(1), "the reconnect resumes after the last event");
      assertEquals("3", stream.lastEventId());
    } finally {
      server.stop(0);
    }
  }

  private static String event(String id, String type) {
    return "id: "
        + id
        + "\nevent: "
        + type
        + "\ndata: {\"type\":\""
        + type
        + "\",\"at\":\"2026-11-23T10:00:00Z\",\"agentId\":\"a1\"}\n\n";
  }

  /** The fake server's delay before it acts: a slow or silent server is what is tested. */
  private static void sleepThen(long millis, Runnable action) {
    try {
      Thread.sleep(millis);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    action.run();
  }
}
