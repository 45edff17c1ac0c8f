package dev.rota.faults.input;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.rota.faults.harness.FaultCluster;
import dev.rota.faults.harness.FaultPostgres;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * New input during a turn across three node processes (the fault suite's cluster on PostgreSQL):
 * the agent hosted on one node, the producer posting to another, the runner's claims and {@code
 * input} poll on the third. A steered notification reaches the runner's poll on another node, an
 * interrupt is told to it, and the agent's next turn is granted to a claim waiting there.
 *
 * <p>{@code rota.faults.input-rounds} rounds of each (3 in the default build; 200 or more is the
 * measurement of docs/performance.md, with 20 warm-up rounds first). Nothing here is timed: the
 * figures are printed and written to {@code target/faults/new-input-across-nodes.md}.
 */
class NewInputAcrossNodesTest {

  @Test
  void steeringAndInterruptsReachARunnerOnAnotherNode() throws Exception {
    Path jar = Path.of(property("rota.faults.jar", "../rota-server/target/rota-server.jar"));
    Path config = Path.of(property("rota.faults.config", "../../config/cluster-node.conf"));
    Path out = Path.of(property("rota.faults.out", "target/faults"));
    int rounds = Integer.parseInt(property("rota.faults.input-rounds", "3"));
    Path dir = out.resolve("new-input-across-nodes");
    NewInputAcrossNodes.Result result;
    try (FaultPostgres db = FaultPostgres.start(dir.resolve("postgres"));
        FaultCluster cluster =
            FaultCluster.start(
                3, jar.toAbsolutePath(), config.toAbsolutePath(), db, dir.resolve("nodes"));
        NewInputAcrossNodes bench = new NewInputAcrossNodes(cluster)) {
      result = bench.measure(rounds >= 100 ? 20 : 0, rounds);
    }
    String table = result.render();
    System.out.println(table);
    Files.createDirectories(out);
    Files.writeString(out.resolve("new-input-across-nodes.md"), table);
    for (List<NewInputAcrossNodes.Sample> samples :
        List.of(result.steer(), result.interruptTold(), result.nextTurn())) {
      assertEquals(rounds, samples.size());
      for (NewInputAcrossNodes.Sample s : samples) {
        assertTrue(
            s.producer() != s.host() && s.runner() != s.host() && s.runner() != s.producer(),
            "three distinct nodes: " + s);
      }
    }
  }

  private static String property(String name, String fallback) {
    String value = System.getProperty(name);
    return value == null || value.isBlank() ? fallback : value;
  }
}
