package dev.rota.bench.budget;

import java.util.ArrayList;
import java.util.List;

/**
 * Which stage of a turn a sampled stack belongs to: an ordered table of frame prefixes, the first
 * rule that matches deciding. A rule looks either at every frame of the stack ({@link Scope#ANY}:
 * work of one kind wherever it runs, such as serialization or a library), or only at the stack's
 * owner ({@link Scope#OWNER}): the frame of Rota's own code nearest the leaf, leaving out {@code
 * dev.rota.core} (pure logic, run on behalf of whichever component calls it) and the helpers at the
 * root of {@code dev.rota.cluster} (asks, the serialization marker). So the journal writer's
 * thread, running the read model's statements, counts as read-model statements, and a coordinator's
 * stack counts as the coordinator's even where it builds a message of the dispatcher. A stack no
 * rule places is {@link #OTHER}: the table shows it, so nothing hides.
 */
public final class StageRules {

  public static final String OTHER = "other";

  /** Which frames a rule looks at. */
  public enum Scope {
    /** Any frame of the stack. */
    ANY,
    /** The stack's owner frame ({@link StageRules#owner}). */
    OWNER
  }

  /** One row of the table: a stage, where to look, and the frame prefixes that name it. */
  public record Rule(String stage, Scope scope, List<String> prefixes) {
    public Rule {
      prefixes = List.copyOf(prefixes);
    }

    static Rule any(String stage, String... prefixes) {
      return new Rule(stage, Scope.ANY, List.of(prefixes));
    }

    static Rule owner(String stage, String... prefixes) {
      return new Rule(stage, Scope.OWNER, List.of(prefixes));
    }

    boolean matches(List<String> frames, String owner) {
      if (scope == Scope.OWNER) {
        return owner != null && startsWithAny(owner);
      }
      for (String frame : frames) {
        if (startsWithAny(frame)) {
          return true;
        }
      }
      return false;
    }

    private boolean startsWithAny(String frame) {
      for (String prefix : prefixes) {
        if (frame.startsWith(prefix)) {
          return true;
        }
      }
      return false;
    }
  }

  /**
   * The table, in order (modules/rota-bench/README.md, "budget", shows it): kinds of work that cut
   * across components first, then the Rota component that owns the stack, then the libraries and
   * runtimes beneath, last the thread pools' own frames.
   */
  public static final List<Rule> RULES =
      List.of(
          Rule.any("JFR (the recording itself)", "jdk.jfr."),
          Rule.any(
              "serialization",
              "org.apache.pekko.serialization.",
              "org.apache.pekko.remote.serialization.",
              "org.apache.pekko.persistence.serialization.",
              "org.apache.pekko.cluster.sharding.protobuf.",
              "org.apache.pekko.protobufv3.",
              "com.fasterxml.jackson.dataformat.cbor."),
          Rule.any("JSON", "com.fasterxml.jackson.", "org.apache.pekko.http.javadsl.marshallers."),
          Rule.any("metrics", "dev.rota.cluster.metrics.", "io.micrometer.", "io.prometheus."),
          Rule.any("logging", "ch.qos.logback.", "org.slf4j.", "org.apache.pekko.event.slf4j."),
          Rule.owner("read-model statements", "dev.rota.cluster.readmodel."),
          Rule.owner(
              "journal: event inserts",
              "dev.rota.cluster.journal.EventInserts",
              "dev.rota.cluster.journal.EventRow"),
          Rule.owner("journal actor", "dev.rota.cluster.journal.RotaJournal"),
          Rule.owner("journal writer (batches, commits)", "dev.rota.cluster.journal."),
          Rule.owner(
              "tenant gate", "dev.rota.cluster.tenant.", "dev.rota.cluster.agent.TenantCaps"),
          Rule.owner(
              "dispatcher",
              "dev.rota.cluster.assign.Dispatcher",
              "dev.rota.cluster.assign.AgentClaims",
              "dev.rota.cluster.assign.ClaimSettings",
              "dev.rota.cluster.assign.ExternalClaim",
              "dev.rota.cluster.assign.HiddenAgents",
              "dev.rota.cluster.assign.PartitionHeads",
              "dev.rota.cluster.assign.PendingClaims",
              "dev.rota.cluster.assign.RunnerBlocks",
              "dev.rota.cluster.assign.RunnersSeen",
              "dev.rota.cluster.assign.TenantHolds",
              "dev.rota.cluster.assign.WorkProtocol"),
          Rule.owner("coordinators", "dev.rota.cluster.assign."),
          Rule.owner("agents' handlers", "dev.rota.cluster.agent."),
          Rule.owner("in-cluster runners", "dev.rota.cluster.runner."),
          Rule.owner("HTTP", "dev.rota.http."),
          Rule.owner(
              "background (rescuer, pool scaler, health)",
              "dev.rota.cluster.rescue.",
              "dev.rota.cluster.pool.",
              "dev.rota.cluster.health.",
              "dev.rota.cluster.system."),
          Rule.owner("bench (executor, load, counting)", "dev.rota.bench."),
          Rule.owner("Rota, elsewhere", "dev.rota."),
          Rule.any("snapshot store", "org.apache.pekko.persistence.jdbc.", "slick."),
          Rule.any("journal actor", "org.apache.pekko.persistence.journal."),
          Rule.any("persist cycle (Persistence Typed)", "org.apache.pekko.persistence."),
          Rule.any("sharding", "org.apache.pekko.cluster.sharding."),
          Rule.any("HTTP", "org.apache.pekko.http."),
          Rule.any("JDBC outside Rota's frames", "org.postgresql.", "com.zaxxer.hikari."),
          Rule.any("Rota core, caller not in the stack", "dev.rota.core."),
          Rule.any("streams and sockets", "org.apache.pekko.stream.", "org.apache.pekko.io."),
          Rule.any("cluster and remoting", "org.apache.pekko.cluster.", "org.apache.pekko.remote."),
          Rule.any(
              "actor runtime (mailboxes, scheduling)", "org.apache.pekko.", "scala.concurrent."),
          Rule.any("thread pools (queues, parking)", "java.util.concurrent."));

  private final List<Rule> rules;

  public StageRules(List<Rule> rules) {
    this.rules = List.copyOf(rules);
  }

  public static StageRules standard() {
    return new StageRules(RULES);
  }

  /** Every stage name, in the table's order, each once, {@link #OTHER} last. */
  public List<String> stages() {
    List<String> stages = new ArrayList<>();
    for (Rule rule : rules) {
      if (!stages.contains(rule.stage())) {
        stages.add(rule.stage());
      }
    }
    stages.add(OTHER);
    return stages;
  }

  /** The stage of a stack given as frames {@code class.method}, leaf first (as JFR gives them). */
  public String classify(List<String> frames) {
    String owner = owner(frames);
    for (Rule rule : rules) {
      if (rule.matches(frames, owner)) {
        return rule.stage();
      }
    }
    return OTHER;
  }

  /**
   * The {@code dev.rota} frame nearest the leaf, outside {@code dev.rota.core} and the classes at
   * the root of {@code dev.rota.cluster}; null if the stack has none.
   */
  static String owner(List<String> frames) {
    for (String frame : frames) {
      if (frame.startsWith("dev.rota.")
          && !frame.startsWith("dev.rota.core.")
          && !isClusterRootHelper(frame)) {
        return frame;
      }
    }
    return null;
  }

  /** {@code dev.rota.cluster.Asks.ask}: a class of the package itself, not of a sub-package. */
  private static boolean isClusterRootHelper(String frame) {
    String prefix = "dev.rota.cluster.";
    if (!frame.startsWith(prefix)) {
      return false;
    }
    String rest = frame.substring(prefix.length());
    return rest.indexOf('.') == rest.lastIndexOf('.') && Character.isUpperCase(rest.charAt(0));
  }
}
