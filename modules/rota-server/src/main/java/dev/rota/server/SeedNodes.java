package dev.rota.server;

import java.util.ArrayList;
import java.util.List;
import org.apache.pekko.actor.Address;
import org.apache.pekko.actor.AddressFromURIString;

/**
 * Parses {@code ROTA_SEED_NODES} ({@code rota.cluster.seed-nodes}): a comma-separated list whose
 * entries are {@code host:port}, {@code [ipv6]:port} or full {@code pekko://rota@host:port}
 * addresses, into the address strings {@code pekko.cluster.seed-nodes} expects.
 */
public final class SeedNodes {
  private SeedNodes() {}

  /**
   * The seed-node addresses in {@code raw}, in order; empty when {@code raw} is blank.
   *
   * @throws StartupException naming the first entry that is not a valid address of {@code
   *     systemName}
   */
  public static List<String> parse(String raw, String systemName) {
    List<String> addresses = new ArrayList<>();
    for (String part : raw.split(",")) {
      String entry = part.trim();
      if (!entry.isEmpty()) {
        addresses.add(toAddress(entry, systemName));
      }
    }
    return List.copyOf(addresses);
  }

  /**
   * Whether {@code seed} (an address {@link #parse} returned) is this node's own cluster address
   * ({@code rota.cluster.host} and {@code rota.cluster.port} of {@code config}).
   */
  static boolean isSelf(String seed, com.typesafe.config.Config config, String systemName) {
    int port = config.getInt("rota.cluster.port");
    if (port == 0) {
      return false;
    }
    String self = toAddress(config.getString("rota.cluster.host") + ":" + port, systemName);
    return AddressFromURIString.parse(self).equals(AddressFromURIString.parse(seed));
  }

  private static String toAddress(String entry, String systemName) {
    String uri = entry.contains("://") ? entry : "pekko://" + systemName + "@" + entry;
    Address address;
    try {
      address = AddressFromURIString.parse(uri);
    } catch (Exception e) { // MalformedURLException, thrown undeclared from Scala
      throw invalid(entry, systemName);
    }
    boolean complete =
        address.protocol().equals("pekko")
            && address.system().equals(systemName)
            && address.getHost().isPresent()
            && address.getPort().isPresent()
            && address.getPort().get() > 0
            && address.getPort().get() <= 65535;
    if (!complete) {
      throw invalid(entry, systemName);
    }
    return address.toString();
  }

  private static StartupException invalid(String entry, String systemName) {
    return new StartupException(
        "seed node '"
            + entry
            + "' in rota.cluster.seed-nodes (ROTA_SEED_NODES) is neither host:port nor pekko://"
            + systemName
            + "@host:port");
  }
}
