package dev.rota.faults.harness;

import java.time.Duration;

/** The faults the suite injects. */
public enum FaultKind {
  /** SIGKILL of one node; restarted after the observation time. */
  KILL_9("kill-9", true, Duration.ZERO, false),
  /**
   * SIGSTOP of one node for 20 s, longer than failure detection plus the resolver's stable-after,
   * so the others down it; then SIGCONT. The node must exit (non-zero) instead of working on, and
   * is started again.
   */
  SIGSTOP_20S("sigstop-20s", true, Duration.ofSeconds(20), false),
  /** The same freeze for 60 s. */
  SIGSTOP_60S("sigstop-60s", true, Duration.ofSeconds(60), false),
  /** The same freeze for five minutes (run once per suite: it is long). */
  SIGSTOP_5MIN("sigstop-5min", true, Duration.ofMinutes(5), false),
  /**
   * One node cut off from the two others for 30 s, both ways, while it still reaches PostgreSQL and
   * its clients (a namespace per node, blackhole routes). It must be downed (it exits) and must not
   * acknowledge what it cannot make safe; after healing it is started again.
   */
  PARTITION("partition", true, Duration.ofSeconds(30), true),
  /** The same, but only what the isolated node sends to the others is dropped. */
  PARTITION_ONE_WAY("partition-one-way", true, Duration.ofSeconds(30), true),
  /**
   * Node 2's clock 30 s ahead and node 3's 30 s behind for the whole run (libfaketime), turns long
   * enough that most runners hold a lease; kill -9 of a skewed node hands its agents' live leases
   * to nodes whose clocks differ.
   */
  CLOCK_SKEW("clock-skew", true, Duration.ZERO, false),
  /**
   * SIGKILL of two of the three nodes at once; the survivor must stop acknowledging (it is a
   * minority) until the two return, 30 s later, and the cluster forms again.
   */
  TWO_NODES_LOST("two-nodes-lost", false, Duration.ofSeconds(30), false),
  /**
   * PostgreSQL stopped with {@code -m immediate} (as a crash) and started again 3 s later (15 s in
   * every third run).
   */
  POSTGRES_RESTART("postgres-restart", false, Duration.ZERO, false),
  /** Every node in turn: SIGTERM, wait for it to exit, start it again, wait until ready. */
  ROLLING_RESTART("rolling-restart", false, Duration.ZERO, false),
  /**
   * The rolling restart from an earlier commit's jar to the current one: the nodes start from the
   * old jar ({@link OldJar}), and each in turn leaves (SIGTERM), is started from the new jar and
   * rejoins before the next; the load then goes on on the all-new cluster. Not part of the fault
   * suite's runs: it needs the old jar ({@code -Pupgrade-rolling}, {@code RollingUpgradeTest}).
   */
  ROLLING_UPGRADE("rolling-upgrade", false, Duration.ZERO, false);

  private final String label;
  private final boolean bounded;
  private final Duration length;
  private final boolean partition;

  FaultKind(String label, boolean bounded, Duration length, boolean partition) {
    this.label = label;
    this.bounded = bounded;
    this.length = length;
    this.partition = partition;
  }

  public String label() {
    return label;
  }

  /**
   * Whether the agents of the node it hits must be served again within the availability bound (the
   * issue's "killed or frozen node"), and every other agent within the others' bound; the other
   * faults' windows are reported only.
   */
  public boolean bounded() {
    return bounded;
  }

  /** How long a freeze, partition or outage lasts (zero for the others). */
  public Duration length() {
    return length;
  }

  /** Whether the nodes need a network namespace each. */
  public boolean partition() {
    return partition;
  }

  /** Whether the node it hits is frozen with SIGSTOP. */
  public boolean freezes() {
    return this == SIGSTOP_20S || this == SIGSTOP_60S || this == SIGSTOP_5MIN;
  }

  /** Whether its run starts the nodes from an earlier commit's jar. */
  public boolean upgrades() {
    return this == ROLLING_UPGRADE;
  }

  /** The kinds the fault suite runs: every kind but the upgrade, which needs another jar. */
  public static java.util.List<FaultKind> suite() {
    return java.util.Arrays.stream(values()).filter(k -> !k.upgrades()).toList();
  }

  /** The kind with this label ({@code kill-9}, {@code sigstop-60s}, ...). */
  public static FaultKind of(String label) {
    for (FaultKind kind : values()) {
      if (kind.label.equals(label.trim())) {
        return kind;
      }
    }
    throw new IllegalArgumentException(
        "no fault kind '"
            + label
            + "'; one of "
            + java.util.Arrays.stream(values()).map(FaultKind::label).toList());
  }
}
