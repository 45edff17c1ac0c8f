package dev.rota.faults.calls;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.rota.faults.harness.FaultCluster;
import dev.rota.faults.harness.FaultPostgres;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Agents that work together across three node processes (the fault suite's cluster on PostgreSQL),
 * the runner on a node that hosts none of the round's agents when there is one: a send reaches its
 * target's claim, a chain of depth 3 comes back to its origin, a group's ten replies reach the
 * caller in one claim.
 *
 * <p>{@code rota.faults.call-rounds} rounds of each (3 in the default build; 200 is the
 * measurement, with 20 warm-up rounds first). Nothing is timed: the figures are printed and written
 * to {@code target/faults/calls-across-nodes.md}.
 */
class CallsAcrossNodesTest {

  @Test
  void sendsChainsAndGroupsReachAgentsHostedOnOtherNodes() throws Exception {
    Path jar = Path.of(property("rota.faults.jar", "../rota-server/target/rota-server.jar"));
    Path config = Path.of(property("rota.faults.config", "../../config/cluster-node.conf"));
    Path out = Path.of(property("rota.faults.out", "target/faults"));
    int rounds = Integer.parseInt(property("rota.faults.call-rounds", "3"));
    Path dir = out.resolve("calls-across-nodes");
    CallsAcrossNodes.Result result;
    try (FaultPostgres db = FaultPostgres.start(dir.resolve("postgres"));
        FaultCluster cluster =
            FaultCluster.start(
                3, jar.toAbsolutePath(), config.toAbsolutePath(), db, dir.resolve("nodes"));
        CallsAcrossNodes bench = new CallsAcrossNodes(cluster)) {
      result = bench.measure(rounds >= 100 ? 20 : 0, rounds);
    }
    String table = result.render();
    System.out.println(table);
    Files.createDirectories(out);
    Files.writeString(out.resolve("calls-across-nodes.md"), table);
    for (List<CallsAcrossNodes.Sample> samples :
        List.of(result.plain(), result.hop(), result.chain(), result.group())) {
      assertEquals(rounds, samples.size());
      samples.forEach(s -> assertTrue(s.ms() > 0, "a time after its start: " + s));
    }
    // With one or two agents a node hosting neither always exists.
    assertTrue(result.plain().stream().allMatch(CallsAcrossNodes.Sample::away));
    assertTrue(result.hop().stream().allMatch(CallsAcrossNodes.Sample::away));
  }

  private static String property(String name, String fallback) {
    String value = System.getProperty(name);
    return value == null || value.isBlank() ? fallback : value;
  }
}
