package dev.rota.cluster.runner.executor;

import static dev.rota.cluster.runner.executor.WebhookTargets.KEY;
import static dev.rota.cluster.runner.executor.WebhookTargets.literal;
import static dev.rota.cluster.runner.executor.WebhookTargets.path;
import static dev.rota.cluster.runner.executor.WebhookTargets.segments;

import java.net.InetAddress;
import java.net.URI;
import java.net.URISyntaxException;
import java.util.List;
import java.util.Locale;
import java.util.Optional;

/**
 * One entry of {@link WebhookTargets}, parsed from its text and matched against a URL or a resolved
 * address. {@code scheme} and {@code pathPrefix} are null unless it is a URL, {@code port} is -1
 * for any, {@code network} is set for an address or CIDR block.
 */
record WebhookTargetEntry(
    String scheme, String host, int port, List<String> pathPrefix, byte[] network, int prefixBits) {

  static WebhookTargetEntry parse(String text) {
    if (text.isEmpty()) {
      throw new IllegalArgumentException(KEY + ": an entry is empty");
    }
    if (text.contains("://")) {
      return url(text);
    }
    int slash = text.indexOf('/');
    if (slash > 0) {
      return cidr(text, slash);
    }
    String host = text;
    int port = -1;
    int colon = text.lastIndexOf(':');
    boolean bracketed = text.startsWith("[");
    if (bracketed ? text.contains("]:") : colon > 0 && text.indexOf(':') == colon) {
      host = text.substring(0, colon);
      port = portOf(text, text.substring(colon + 1));
    }
    return host(text, host, port, null, null);
  }

  private static WebhookTargetEntry url(String text) {
    URI uri;
    try {
      uri = new URI(text).normalize();
    } catch (URISyntaxException e) {
      throw new IllegalArgumentException(KEY + ": '" + text + "' is not a URL");
    }
    String scheme = uri.getScheme() == null ? "" : uri.getScheme().toLowerCase(Locale.ROOT);
    if (!scheme.equals("http") && !scheme.equals("https") || uri.getHost() == null) {
      throw new IllegalArgumentException(KEY + ": '" + text + "' is not an http(s) URL");
    }
    List<String> prefix =
        segments(path(uri))
            .orElseThrow(
                () ->
                    new IllegalArgumentException(
                        KEY + ": '" + text + "' has an encoded dot segment or separator"));
    return host(text, WebhookTargets.host(uri), WebhookTargets.port(uri), scheme, prefix);
  }

  private static WebhookTargetEntry host(
      String text, String host, int port, String scheme, List<String> path) {
    String name = host.toLowerCase(Locale.ROOT);
    if (name.startsWith("[") && name.endsWith("]")) {
      name = name.substring(1, name.length() - 1);
    }
    Optional<InetAddress> address = literal(name);
    if (address.isPresent()) {
      byte[] bytes = address.get().getAddress();
      return new WebhookTargetEntry(scheme, null, port, path, bytes, bytes.length * 8);
    }
    if (!name.matches(
        "(\\*\\.)?[a-z0-9]([a-z0-9-]*[a-z0-9])?(\\.[a-z0-9]([a-z0-9-]*[a-z0-9])?)*")) {
      throw new IllegalArgumentException(
          KEY + ": '" + text + "' is not a host, IP address, CIDR block or http(s) URL");
    }
    return new WebhookTargetEntry(scheme, name, port, path, null, 0);
  }

  /**
   * {@code a.b.c.d/n}, {@code a.b.c.d/n:port}, {@code v6/n}, {@code [v6]/n}, {@code [v6]/n:port}.
   */
  private static WebhookTargetEntry cidr(String text, int slash) {
    String network = text.substring(0, slash);
    if (network.startsWith("[") && network.endsWith("]")) {
      network = network.substring(1, network.length() - 1);
    }
    Optional<InetAddress> address = literal(network);
    String rest = text.substring(slash + 1);
    int port = -1;
    int colon = rest.indexOf(':');
    if (colon >= 0) {
      port = portOf(text, rest.substring(colon + 1));
      rest = rest.substring(0, colon);
    }
    int bits;
    try {
      bits = Integer.parseInt(rest);
    } catch (NumberFormatException e) {
      bits = -1;
    }
    if (address.isEmpty() || bits < 0 || bits > address.get().getAddress().length * 8) {
      throw new IllegalArgumentException(KEY + ": '" + text + "' is not a CIDR block");
    }
    return new WebhookTargetEntry(null, null, port, null, address.get().getAddress(), bits);
  }

  private static int portOf(String text, String port) {
    try {
      int value = Integer.parseInt(port);
      if (value >= 1 && value <= 65535) {
        return value;
      }
    } catch (NumberFormatException e) {
      // answered below
    }
    throw new IllegalArgumentException(KEY + ": '" + text + "' has an invalid port");
  }

  boolean allows(String urlScheme, String urlHost, int urlPort, List<String> urlPath) {
    if (scheme != null && !scheme.equals(urlScheme)) {
      return false;
    }
    if (port >= 0 && port != urlPort) {
      return false;
    }
    if (pathPrefix != null
        && (urlPath.size() < pathPrefix.size()
            || !urlPath.subList(0, pathPrefix.size()).equals(pathPrefix))) {
      return false;
    }
    if (network != null) {
      return literal(urlHost).map(this::names).orElse(false);
    }
    if (host.startsWith("*.")) {
      return urlHost.endsWith(host.substring(1));
    }
    return host.equals(urlHost);
  }

  /** Whether this is an address or CIDR entry that contains {@code address}. */
  boolean names(InetAddress address) {
    byte[] bytes = address.getAddress();
    if (network == null || bytes.length != network.length) {
      return false;
    }
    int full = prefixBits / 8;
    for (int i = 0; i < full; i++) {
      if (bytes[i] != network[i]) {
        return false;
      }
    }
    int rest = prefixBits % 8;
    if (rest == 0) {
      return true;
    }
    int mask = (0xff << (8 - rest)) & 0xff;
    return (bytes[full] & mask) == (network[full] & mask);
  }
}
