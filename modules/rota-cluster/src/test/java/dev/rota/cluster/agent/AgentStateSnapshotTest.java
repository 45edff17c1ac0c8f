package dev.rota.cluster.agent;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.dataformat.cbor.databind.CBORMapper;
import dev.rota.core.model.AgentConfig;
import dev.rota.core.model.AgentState;
import dev.rota.core.model.Notification;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import org.apache.pekko.actor.testkit.typed.javadsl.ActorTestKit;
import org.apache.pekko.serialization.Serialization;
import org.apache.pekko.serialization.SerializationExtension;
import org.apache.pekko.serialization.Serializers;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;

/**
 * An agent's snapshot through the serializer the node uses (Jackson CBOR): its dedupe keys are the
 * plain map they always were, and a snapshot whose map comes in any order (as those written before
 * the keys were kept in order) loads with its keys oldest first.
 */
class AgentStateSnapshotTest {
  private static final ActorTestKit KIT = ActorTestKit.create("AgentStateSnapshotTest");
  private static final Instant T0 = Instant.parse("2026-01-01T00:00:00Z");

  @AfterAll
  static void stop() {
    KIT.shutdownTestKit();
  }

  private static AgentState withKeys(int n) {
    AgentState state = AgentState.empty("a1").registered(AgentConfig.defaults("a1"), T0);
    for (int i = 0; i < n; i++) {
      state =
          state.notified(
              new Notification("n" + i, "mention", null, "k" + i, T0.plusSeconds(i), 0),
              Duration.ofHours(1));
    }
    return state;
  }

  @Test
  void anOlderSnapshotWithItsKeysInAnyOrderLoadsOldestFirst() throws Exception {
    Serialization serialization = SerializationExtension.get(KIT.system());
    AgentState state = withKeys(5);
    byte[] bytes = serialization.serialize(state).get();
    var serializer = serialization.findSerializerFor(state);
    String manifest = Serializers.manifestFor(serializer, state);
    // Plain CBOR: the CBOR serializer compresses nothing by default, and Rota configures none.
    ObjectMapper cbor = new CBORMapper();
    ObjectNode tree = (ObjectNode) cbor.readTree(bytes);
    JsonNode dedupe = tree.get("dedupe");
    assertTrue(dedupe.isObject(), "the plain map of before: " + dedupe);
    assertEquals("n3", dedupe.get("k3").get("notificationId").asText());

    // As a snapshot written before: the same map, its keys in another order.
    List<String> keys = new ArrayList<>();
    dedupe.fieldNames().forEachRemaining(keys::add);
    Collections.reverse(keys);
    ObjectNode shuffled = cbor.createObjectNode();
    keys.forEach(k -> shuffled.set(k, dedupe.get(k)));
    tree.set("dedupe", shuffled);
    AgentState read =
        (AgentState)
            serialization
                .deserialize(cbor.writeValueAsBytes(tree), serializer.identifier(), manifest)
                .get();

    assertEquals(
        List.of("k0", "k1", "k2", "k3", "k4"), List.copyOf(read.dedupe().asMap().keySet()));
    assertEquals(state, read);
  }
}
