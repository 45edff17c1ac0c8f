package dev.rota.cluster.assign;

import static org.junit.jupiter.api.Assertions.assertEquals;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.dataformat.cbor.databind.CBORMapper;
import dev.rota.cluster.CborSerializable;
import dev.rota.cluster.agent.AgentEntity;
import dev.rota.cluster.assign.WorkProtocol.RequestWork;
import dev.rota.cluster.assign.WorkProtocol.WorkReply;
import dev.rota.core.model.ClaimSpec;
import dev.rota.core.model.RunnerMode;
import java.time.Duration;
import java.util.HashSet;
import java.util.Set;
import org.apache.pekko.actor.testkit.typed.javadsl.ActorTestKit;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.serialization.Serialization;
import org.apache.pekko.serialization.SerializationExtension;
import org.apache.pekko.serialization.Serializer;
import org.apache.pekko.serialization.Serializers;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;

/**
 * The two messages that carry a {@link ClaimSpec} between nodes, {@link RequestWork} and the
 * agent's {@link AgentEntity.Claim}, keep the flat fields they had before the spec existed
 * (decision 133): a node of the previous release, whose records held those fields themselves, reads
 * what this one sends, and this one reads what it sends. The previous records are rebuilt here as
 * {@link PreviousRequestWork} and {@link PreviousClaim}, read through the node's own serializer and
 * settings.
 */
class ClaimSpecWireTest {
  private static final ActorTestKit KIT = ActorTestKit.create("ClaimSpecWireTest");
  private static final ObjectMapper CBOR = new CBORMapper();

  /** {@link RequestWork} as the previous release declared it. */
  public record PreviousRequestWork(
      String runnerId,
      String node,
      RunnerMode mode,
      Set<String> capabilities,
      Duration maxWait,
      long leaseSeconds,
      ActorRef<WorkReply> replyTo,
      Set<String> tenants)
      implements CborSerializable {}

  /** {@link AgentEntity.Claim} as the previous release declared it. */
  public record PreviousClaim(
      String runnerId,
      RunnerMode mode,
      Set<String> capabilities,
      long leaseSeconds,
      ActorRef<AgentEntity.Reply> replyTo)
      implements CborSerializable {}

  @AfterAll
  static void stop() {
    KIT.shutdownTestKit();
  }

  private static final ClaimSpec SPEC =
      new ClaimSpec(
          "runner-1",
          RunnerMode.NOTIFICATION,
          Set.of("code"),
          Duration.ofSeconds(20),
          90,
          Set.of("acme"));

  @Test
  void aRequestForWorkKeepsItsFlatFieldsBetweenReleases() throws Exception {
    ActorRef<WorkReply> replyTo = KIT.<WorkReply>createTestProbe().ref();
    RequestWork now = new RequestWork(SPEC, "node-1", replyTo);
    assertEquals(now, readAs(now, RequestWork.class.getName()));

    assertEquals(
        Set.of(
            "runnerId",
            "node",
            "mode",
            "capabilities",
            "maxWait",
            "leaseSeconds",
            "replyTo",
            "tenants"),
        fieldNames(now));
    assertEquals(
        new PreviousRequestWork(
            "runner-1",
            "node-1",
            RunnerMode.NOTIFICATION,
            Set.of("code"),
            Duration.ofSeconds(20),
            90,
            replyTo,
            Set.of("acme")),
        readAs(now, PreviousRequestWork.class.getName()));

    PreviousRequestWork before =
        new PreviousRequestWork(
            "runner-1",
            "node-1",
            RunnerMode.NOTIFICATION,
            Set.of("code"),
            Duration.ofSeconds(20),
            90,
            replyTo,
            Set.of("acme"));
    assertEquals(now, readAs(before, RequestWork.class.getName()));
  }

  @Test
  void theAgentsClaimKeepsItsFlatFieldsBetweenReleases() throws Exception {
    ActorRef<AgentEntity.Reply> replyTo = KIT.<AgentEntity.Reply>createTestProbe().ref();
    AgentEntity.Claim now = new AgentEntity.Claim(SPEC, replyTo);
    assertEquals(now, readAs(now, AgentEntity.Claim.class.getName()));

    // The previous release's five names, and the spec's wait and tenants, which it ignores.
    assertEquals(
        Set.of("runnerId", "mode", "capabilities", "leaseSeconds", "replyTo", "maxWait", "tenants"),
        fieldNames(now));
    assertEquals(
        new PreviousClaim("runner-1", RunnerMode.NOTIFICATION, Set.of("code"), 90, replyTo),
        readAs(now, PreviousClaim.class.getName()));

    PreviousClaim before =
        new PreviousClaim("runner-1", RunnerMode.NOTIFICATION, Set.of("code"), 90, replyTo);
    assertEquals(
        new AgentEntity.Claim(
            new ClaimSpec("runner-1", RunnerMode.NOTIFICATION, Set.of("code"), Duration.ZERO, 90),
            replyTo),
        readAs(before, AgentEntity.Claim.class.getName()));
  }

  @Test
  void theAgentsClaimIsReadUnderTheNameTheNextReleaseGivesIt() throws Exception {
    AgentEntity.Claim claim =
        new AgentEntity.Claim(SPEC, KIT.<AgentEntity.Reply>createTestProbe().ref());
    assertEquals(claim, readAs(claim, "dev.rota.cluster.agent.AgentEntity$ClaimLease"));
  }

  private static Set<String> fieldNames(Object message) throws Exception {
    Serialization serialization = SerializationExtension.get(KIT.system());
    JsonNode tree = CBOR.readTree(serialization.serialize(message).get());
    Set<String> names = new HashSet<>();
    ((ObjectNode) tree).fieldNames().forEachRemaining(names::add);
    return names;
  }

  /** {@code message} as sent, read by a node that knows it under {@code manifest}. */
  private static Object readAs(Object message, String manifest) {
    Serialization serialization = SerializationExtension.get(KIT.system());
    Serializer serializer = serialization.findSerializerFor(message);
    assertEquals(
        message.getClass().getName(), Serializers.manifestFor(serializer, message), "manifest");
    byte[] bytes = serialization.serialize(message).get();
    return serialization.deserialize(bytes, serializer.identifier(), manifest).get();
  }
}
