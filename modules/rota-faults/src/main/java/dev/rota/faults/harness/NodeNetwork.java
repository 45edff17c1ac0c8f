package dev.rota.faults.harness;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;

/**
 * A network of its own for each node, so that cluster traffic between two nodes can be cut while
 * both still reach PostgreSQL and the clients: one Linux network namespace per node ({@code
 * rotaf-n<i>}, address {@code 10.213.0.1<i>}), joined by veth pairs to a bridge in the root
 * namespace ({@code rotaf-br}, {@code 10.213.0.1}), where PostgreSQL and the suite's clients are.
 * The addresses exist only on this machine.
 *
 * <p>A partition is made of blackhole routes inside the nodes' namespaces ({@code ip route add
 * blackhole <peer>/32}): a node can no longer send to that peer, while its route to the bridge
 * address (the database, the clients) stays. No netfilter is needed (this machine has none). Needs
 * root; {@link #create} fails saying so otherwise. Left-overs of an earlier run are removed first,
 * and {@link #close} removes everything, also after a failed run.
 */
public final class NodeNetwork implements AutoCloseable {
  private static final String PREFIX = "rotaf-";
  private static final String BRIDGE = PREFIX + "br";
  private static final String SUBNET = "10.213.0";

  private final int nodes;
  private final Set<String> blackholes = new TreeSet<>();

  private NodeNetwork(int nodes) {
    this.nodes = nodes;
  }

  /**
   * Creates the bridge and one namespace per node.
   *
   * @throws IllegalStateException naming what failed, e.g. that namespaces need root
   */
  public static NodeNetwork create(int nodes) {
    removeLeftovers();
    NodeNetwork network = new NodeNetwork(nodes);
    try {
      ip("link", "add", BRIDGE, "type", "bridge");
      ip("addr", "add", bridgeAddress() + "/24", "dev", BRIDGE);
      ip("link", "set", BRIDGE, "up");
      for (int i = 1; i <= nodes; i++) {
        String ns = namespace(i);
        String veth = PREFIX + "v" + i;
        ip("netns", "add", ns);
        ip("link", "add", veth, "type", "veth", "peer", "name", "eth0", "netns", ns);
        ip("link", "set", veth, "master", BRIDGE);
        ip("link", "set", veth, "up");
        ip("-n", ns, "addr", "add", address(i) + "/24", "dev", "eth0");
        ip("-n", ns, "link", "set", "eth0", "up");
        ip("-n", ns, "link", "set", "lo", "up");
      }
      return network;
    } catch (IllegalStateException e) {
      network.close();
      throw new IllegalStateException(
          "the partition faults need a network namespace per node, which could not be created"
              + " (this needs root and iproute2's ip with netns, veth and bridge support): "
              + e.getMessage(),
          e);
    }
  }

  /** The address of node {@code index} inside its namespace. */
  public static String address(int index) {
    return SUBNET + "." + (10 + index);
  }

  /** The bridge's address in the root namespace: PostgreSQL and the clients, seen from a node. */
  public static String bridgeAddress() {
    return SUBNET + ".1";
  }

  /** The subnet for PostgreSQL's {@code pg_hba.conf}. */
  public static String subnet() {
    return SUBNET + ".0/24";
  }

  /** The command prefix that runs a program in node {@code index}'s namespace. */
  public List<String> launcher(int index) {
    return List.of("ip", "netns", "exec", namespace(index));
  }

  /**
   * Cuts node {@code isolated} off from every other node: both ways ({@code symmetric}), or only
   * what it sends (the others' packets still reach it, its own to them, answers included, do not).
   */
  public synchronized void isolate(int isolated, boolean symmetric) {
    for (int other = 1; other <= nodes; other++) {
      if (other == isolated) {
        continue;
      }
      blackhole(isolated, other);
      if (symmetric) {
        blackhole(other, isolated);
      }
    }
  }

  /** Removes every blackhole route: the nodes reach each other again. */
  public synchronized void heal() {
    for (String route : List.copyOf(blackholes)) {
      String[] parts = route.split(" ");
      ip("-n", parts[0], "route", "del", "blackhole", parts[1] + "/32");
      blackholes.remove(route);
    }
  }

  private void blackhole(int from, int to) {
    ip("-n", namespace(from), "route", "add", "blackhole", address(to) + "/32");
    blackholes.add(namespace(from) + " " + address(to));
  }

  @Override
  public void close() {
    for (int i = 1; i <= nodes; i++) {
      quietly("netns", "del", namespace(i));
    }
    quietly("link", "del", BRIDGE);
  }

  /** Namespaces and the bridge an earlier run left behind (killed before it could clean up). */
  private static void removeLeftovers() {
    String namespaces;
    try {
      namespaces = run(List.of("ip", "netns", "list"));
    } catch (IllegalStateException e) {
      return; // no ip, or not allowed: create() says what is missing
    }
    for (String line : namespaces.split("\n")) {
      String name = line.trim().split("\\s+")[0];
      if (name.startsWith(PREFIX)) {
        quietly("netns", "del", name);
      }
    }
    quietly("link", "del", BRIDGE);
  }

  private static String namespace(int index) {
    return PREFIX + "n" + index;
  }

  private static void quietly(String... args) {
    try {
      ip(args);
    } catch (IllegalStateException alreadyGone) {
      // Nothing to remove.
    }
  }

  private static void ip(String... args) {
    List<String> command = new ArrayList<>();
    command.add("ip");
    command.addAll(List.of(args));
    run(command);
  }

  private static String run(List<String> command) {
    try {
      Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
      String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
      if (!process.waitFor(30, TimeUnit.SECONDS)) {
        process.destroyForcibly();
        throw new IllegalStateException(String.join(" ", command) + " did not finish");
      }
      if (process.exitValue() != 0) {
        throw new IllegalStateException(
            String.join(" ", command) + " failed (" + process.exitValue() + "): " + output.trim());
      }
      return output;
    } catch (IOException e) {
      throw new IllegalStateException("cannot run " + String.join(" ", command) + ": " + e, e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted", e);
    }
  }
}
