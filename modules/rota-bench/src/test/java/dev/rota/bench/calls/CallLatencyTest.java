package dev.rota.bench.calls;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.rota.server.RotaNode;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The call latency bench on one in-process node: a send reaches its target's waiting claim, a chain
 * of depth 3 comes back to its origin, and a group's ten replies reach the caller in one claim.
 * {@code rota.bench.call-rounds} rounds (3 in the default build; 200 is the measurement, with 20
 * warm-up rounds first). Nothing is timed: the figures are printed and written to {@code
 * target/call-latency.md}.
 */
class CallLatencyTest {

  @Test
  void sendsChainsAndGroupsReachTheirAgentsOnOneNode() throws Exception {
    int rounds = Integer.getInteger("rota.bench.call-rounds", 3);
    CallLatency.Result result;
    try (RotaNode node = CallLatency.startNode();
        CallLatency bench = new CallLatency(CallLatency.uri(node))) {
      bench.awaitReady();
      result = bench.measure(rounds >= 100 ? 20 : 0, rounds);
    }
    String table = result.render("on one node");
    System.out.println(table);
    Files.createDirectories(Path.of("target"));
    Files.writeString(Path.of("target/call-latency.md"), table);
    for (List<Double> samples :
        List.of(result.plain(), result.hop(), result.chain(), result.group())) {
      assertEquals(rounds, samples.size());
      samples.forEach(ms -> assertTrue(ms > 0, "a time after its start: " + ms));
    }
  }
}
