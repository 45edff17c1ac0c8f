package dev.rota.cluster.assign;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.rota.cluster.agent.AgentEntity;
import dev.rota.cluster.assign.WorkProtocol.Assigned;
import dev.rota.cluster.assign.WorkProtocol.NoWork;
import dev.rota.cluster.assign.WorkProtocol.Paused;
import dev.rota.cluster.assign.WorkProtocol.RequestWork;
import dev.rota.cluster.assign.WorkProtocol.WorkReply;
import dev.rota.core.model.ActivationKind;
import dev.rota.core.model.AgentConfig;
import dev.rota.core.model.ClaimSpec;
import dev.rota.core.model.Lease;
import dev.rota.core.model.RunnerMode;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletionException;
import java.util.concurrent.TimeUnit;
import org.apache.pekko.actor.testkit.typed.javadsl.ActorTestKit;
import org.apache.pekko.actor.testkit.typed.javadsl.LogCapturingExtension;
import org.apache.pekko.actor.testkit.typed.javadsl.TestProbe;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * A claim's states on the paths that give no lease back: the dispatcher's answer, the claim's own
 * answer when the dispatcher is silent, and a lease taken by the runner's connection. The paths
 * that hand a lease back run against real agents in rota-http's {@code ClaimRoutesTest}.
 */
@ExtendWith(LogCapturingExtension.class)
class ExternalClaimTest {
  private static final ActorTestKit KIT = ActorTestKit.create("ExternalClaimTest");
  private static final Duration MARGIN = Duration.ofMillis(300);

  @AfterAll
  static void shutdown() {
    KIT.shutdownTestKit();
  }

  private static ClaimSettings settings() {
    return ClaimSettings.from(KIT.system().settings().config()).withAnswerMargin(MARGIN);
  }

  private static ClaimSpec request(Duration maxWait) {
    return new ClaimSpec("runner-1", RunnerMode.HYBRID, Set.of(), maxWait, 30);
  }

  private static AgentEntity.Granted granted() {
    Instant now = Instant.now();
    Lease lease =
        new Lease(
            "a1:1",
            "runner-1",
            ActivationKind.INBOX,
            1,
            1,
            now,
            now.plusSeconds(30),
            30,
            List.of(),
            null);
    return new AgentEntity.Granted(lease, List.of(), AgentConfig.defaults("a1"), false);
  }

  private static WorkReply answer(ExternalClaim claim) {
    return claim.answer().toCompletableFuture().orTimeout(5, TimeUnit.SECONDS).join();
  }

  @Test
  void aLongPollCarriesTheDispatchersAnswer() {
    TestProbe<Dispatcher.Command> dispatcher = KIT.createTestProbe();
    ExternalClaim claim =
        ExternalClaim.ask(
            KIT.system(), dispatcher.ref(), settings(), request(Duration.ofSeconds(5)));
    RequestWork asked = dispatcher.expectMessageClass(RequestWork.class);
    assertEquals(Duration.ofSeconds(5), asked.spec().maxWait());
    assertInstanceOf(ExternalClaim.Waiting.class, claim.state());
    asked.replyTo().tell(new Paused());
    assertInstanceOf(Paused.class, answer(claim));
    assertInstanceOf(ExternalClaim.Answered.class, claim.state());
    claim.ended();
    assertInstanceOf(ExternalClaim.Answered.class, claim.state());
  }

  @Test
  void aLongPollTheDispatcherLeavesUnansweredEndsNone() {
    TestProbe<Dispatcher.Command> dispatcher = KIT.createTestProbe();
    ExternalClaim claim =
        ExternalClaim.ask(
            KIT.system(), dispatcher.ref(), settings(), request(Duration.ofMillis(200)));
    dispatcher.expectMessageClass(RequestWork.class);
    assertInstanceOf(NoWork.class, answer(claim));
    assertInstanceOf(ExternalClaim.Answered.class, claim.state());
  }

  @Test
  void aClaimWithoutAWaitTheDispatcherLeavesUnansweredIsUnanswered() {
    TestProbe<Dispatcher.Command> dispatcher = KIT.createTestProbe();
    ExternalClaim claim =
        ExternalClaim.ask(KIT.system(), dispatcher.ref(), settings(), request(Duration.ZERO));
    dispatcher.expectMessageClass(RequestWork.class);
    CompletionException e =
        org.junit.jupiter.api.Assertions.assertThrows(
            CompletionException.class, () -> answer(claim));
    ExternalClaim.Unanswered unanswered =
        assertInstanceOf(ExternalClaim.Unanswered.class, e.getCause());
    assertEquals(MARGIN, unanswered.within());
  }

  @Test
  void aLeaseOfferedToALongPollIsTakenOnceByItsConnection() {
    TestProbe<Dispatcher.Command> dispatcher = KIT.createTestProbe();
    ExternalClaim claim =
        ExternalClaim.ask(
            KIT.system(), dispatcher.ref(), settings(), request(Duration.ofSeconds(5)));
    RequestWork asked = dispatcher.expectMessageClass(RequestWork.class);
    AgentEntity.Granted granted = granted();
    asked.replyTo().tell(new Assigned(granted));
    assertEquals(granted, assertInstanceOf(Assigned.class, answer(claim)).granted());
    assertEquals(new ExternalClaim.Offered(granted), claim.state());
    assertTrue(claim.take());
    assertFalse(claim.take());
    claim.ended();
    assertInstanceOf(ExternalClaim.Taken.class, claim.state());
  }

  @Test
  void aLeaseForAClaimWithoutAWaitIsTakenWithItsAnswer() {
    TestProbe<Dispatcher.Command> dispatcher = KIT.createTestProbe();
    ExternalClaim claim =
        ExternalClaim.ask(KIT.system(), dispatcher.ref(), settings(), request(Duration.ZERO));
    RequestWork asked = dispatcher.expectMessageClass(RequestWork.class);
    asked.replyTo().tell(new Assigned(granted()));
    assertInstanceOf(Assigned.class, answer(claim));
    assertInstanceOf(ExternalClaim.Taken.class, claim.state());
  }
}
