package dev.rota.faults.soak;

import java.nio.file.Path;
import java.time.Duration;

/**
 * What a soak runs: how long, at what rate over how many agents, with how many runners of each
 * kind, and the journal knobs that make retention drop partitions several times an hour. Read from
 * {@code rota.soak.*} system properties (the {@code soak} profile of {@code
 * modules/rota-faults/pom.xml} passes them), each with the default the documented hour uses.
 *
 * @param minutes how long the load runs (60; 8 to try it)
 * @param rate notifications per second, all producers together
 * @param agents the agents the notifications spread over (each about rate / agents a second)
 * @param producers producer threads, each pacing its share of the rate
 * @param httpRunners external runners over HTTP ({@code WorkloadRunners})
 * @param inClusterRunners the node's own runners (a pool whose executor calls the soak's webhook)
 * @param retention {@code rota.journal.retention}
 * @param maintenanceInterval {@code rota.journal.maintenance-interval}
 * @param partitionMinRows {@code rota.journal.partition-min-rows}: small, so that a retention
 *     window spans several partitions at this rate
 * @param snapshotEvery {@code rota.agent.snapshot-every}
 * @param dedupeWindow {@code rota.agent.dedupe-window}: as short as the retention. Every soak
 *     notification has a dedupe key, and an agent keeps its keys for the window (at most {@code
 *     rota.agent.max-dedupe-keys}, 1000) in its state and so in every snapshot; with the default
 *     hour, snapshots grow for the first half hour (1000 keys at half a notification a second) and
 *     the database with them, which is the dedupe map filling, not retention falling behind. Made
 *     as short as the retention, the keys are at their steady count (about 150) within the two
 *     windows the size check waits for.
 * @param window the reporting period
 */
public record SoakSettings(
    Path jar,
    Path config,
    Path out,
    int minutes,
    int rate,
    int agents,
    int producers,
    int httpRunners,
    int inClusterRunners,
    Duration retention,
    Duration maintenanceInterval,
    long partitionMinRows,
    int snapshotEvery,
    Duration dedupeWindow,
    Duration window) {

  public static SoakSettings fromSystemProperties() {
    return new SoakSettings(
        Path.of(property("rota.faults.jar", "../rota-server/target/rota-server.jar"))
            .toAbsolutePath(),
        Path.of(property("rota.faults.config", "../../config/cluster-node.conf")).toAbsolutePath(),
        Path.of(property("rota.faults.out", "target/faults")).resolve("soak").toAbsolutePath(),
        Integer.parseInt(property("rota.soak.minutes", "60")),
        Integer.parseInt(property("rota.soak.rate", "200")),
        Integer.parseInt(property("rota.soak.agents", "400")),
        Integer.parseInt(property("rota.soak.producers", "16")),
        Integer.parseInt(property("rota.soak.http-runners", "8")),
        Integer.parseInt(property("rota.soak.in-cluster-runners", "6")),
        Duration.parse("PT" + property("rota.soak.retention", "5m").toUpperCase()),
        Duration.parse("PT" + property("rota.soak.maintenance-interval", "15s").toUpperCase()),
        Long.parseLong(property("rota.soak.partition-min-rows", "10000")),
        Integer.parseInt(property("rota.soak.snapshot-every", "50")),
        Duration.parse("PT" + property("rota.soak.dedupe-window", "5m").toUpperCase()),
        Duration.ofMinutes(5));
  }

  /** The node's overlay: the journal knobs, the snapshot interval, the in-cluster runner pool. */
  String nodeConfig(int webhookPort) {
    return String.join(
        "\n",
        "rota.journal {",
        "  retention = " + retention.toSeconds() + "s",
        "  maintenance-interval = " + maintenanceInterval.toMillis() + "ms",
        "  partition-min-rows = " + partitionMinRows,
        "}",
        "rota.agent.snapshot-every = " + snapshotEvery,
        "rota.agent.dedupe-window = " + dedupeWindow.toSeconds() + "s",
        "rota.runners {",
        "  enabled = " + (inClusterRunners > 0),
        "  lease-seconds = 30",
        "  pools = [ { name = \"soak\", count = "
            + Math.max(1, inClusterRunners)
            + ", mode = notification, executor = http } ]",
        "  http.allowed-targets = [\"127.0.0.1:" + webhookPort + "\"]",
        "}");
  }

  private static String property(String name, String fallback) {
    String value = System.getProperty(name, "");
    return value.isBlank() ? fallback : value;
  }
}
