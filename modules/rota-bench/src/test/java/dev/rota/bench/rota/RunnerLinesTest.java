package dev.rota.bench.rota;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import dev.rota.bench.system.ClaimedActivation;
import dev.rota.bench.system.Completion;
import dev.rota.bench.system.RunnerListener;
import dev.rota.core.model.ActivationKind;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class RunnerLinesTest {

  private final List<ClaimedActivation> claims = new ArrayList<>();
  private final List<Completion> completions = new ArrayList<>();
  private final RunnerLines.Parser parser =
      new RunnerLines.Parser(
          new RunnerListener() {
            @Override
            public void onClaim(ClaimedActivation claim) {
              claims.add(claim);
            }

            @Override
            public void onComplete(Completion completion) {
              completions.add(completion);
            }
          });

  @Test
  void claimsArriveWithTheirTokensAndTime() {
    parser.accept(
        RunnerLines.claim(
            new ClaimedActivation(
                "agent-000007", ActivationKind.INBOX, 3, new long[] {11, 12}, 1_234_567L)));
    parser.accept(
        RunnerLines.claim(
            new ClaimedActivation(
                "agent-000008", ActivationKind.EXPLORATION, 0, ClaimedActivation.NO_TOKENS, 99L)));

    assertEquals(2, claims.size());
    ClaimedActivation inbox = claims.get(0);
    assertEquals("agent-000007", inbox.agentId());
    assertEquals(ActivationKind.INBOX, inbox.kind());
    assertEquals(3, inbox.notifications());
    assertArrayEquals(new long[] {11, 12}, inbox.tokens());
    assertEquals(1_234_567L, inbox.claimedAtMicros());
    assertEquals(ActivationKind.EXPLORATION, claims.get(1).kind());
    assertArrayEquals(ClaimedActivation.NO_TOKENS, claims.get(1).tokens());
    assertEquals(2, parser.claims());
  }

  @Test
  void completionsArriveWithWhatTheyRead() {
    parser.accept(
        RunnerLines.completion(new Completion("agent-000003", ActivationKind.INBOX, 100, 42L)));

    assertEquals(
        List.of(new Completion("agent-000003", ActivationKind.INBOX, 100, 42L)), completions);
    assertEquals(1, parser.completions());
  }

  @Test
  void errorsAreCountedAndTheFirstKept() {
    parser.accept(RunnerLines.error("complete failed:\nconnection reset"));
    parser.accept(RunnerLines.error("claim failed"));

    assertEquals(2, parser.errors());
    assertEquals("complete failed: connection reset", parser.firstError());
  }

  @Test
  void theClosingLineCarriesTheChildsOwnCounts() {
    assertNull(parser.summary());
    parser.accept(RunnerLines.summary(new RunnerLines.Summary(5, 4, 1, 1234.5)));

    assertEquals(new RunnerLines.Summary(5, 4, 1, 1234.5), parser.summary());
  }

  @Test
  void ignoresLinesItDoesNotKnow() {
    parser.accept("");
    parser.accept("OpenJDK 64-Bit Server VM warning: something");
    parser.accept("X 1 2 3");

    assertEquals(0, parser.claims() + parser.completions() + parser.errors());
    assertNull(parser.summary());
  }
}
