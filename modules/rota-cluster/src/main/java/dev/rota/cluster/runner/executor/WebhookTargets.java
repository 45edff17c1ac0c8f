package dev.rota.cluster.runner.executor;

import com.typesafe.config.Config;
import java.net.Inet6Address;
import java.net.InetAddress;
import java.net.URI;
import java.net.URISyntaxException;
import java.net.UnknownHostException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;

/**
 * Where the {@code http} executor may send an activation: {@code rota.runners.http.allowed-targets}
 * (decision 50). An entry ({@link WebhookTargetEntry}) is one of
 *
 * <ul>
 *   <li>a host name, optionally with a port: {@code hooks.example.com}, {@code
 *       hooks.example.com:8443}; {@code *.example.com} allows every name under {@code example.com};
 *   <li>an IP address or a CIDR block, optionally with a port: {@code 127.0.0.1}, {@code
 *       [::1]:9000}, {@code 10.96.0.0/12}, {@code 10.96.0.0/12:443}, {@code [fd00::]/8:8443};
 *   <li>a URL prefix: {@code https://hooks.example.com/rota/} allows URLs with that scheme, host
 *       and port whose path segments begin with the prefix's ({@code /rota} allows {@code
 *       /rota/hook}, not {@code /rotaX/hook}).
 * </ul>
 *
 * <p>A URL whose path has a segment that decodes to {@code .} or {@code ..}, or holds an encoded
 * {@code /}, {@code \} or NUL, is refused whatever the entries: a server may decode and resolve it
 * out of the allowed prefix.
 *
 * <p>A URL is allowed when it is http(s), carries no user info and matches an entry. The address
 * its host resolves to is checked again right before each call ({@link #resolve}): a loopback,
 * link-local (the cloud metadata endpoint 169.254.169.254), private, unique-local, shared,
 * unspecified or multicast address is refused unless an IP or CIDR entry names it, so an allowed
 * public name that resolves (or is rebound) to an inward address is not called.
 */
public final class WebhookTargets {
  /** The key of the list, for messages that tell an operator what to change. */
  public static final String KEY = "rota.runners.http.allowed-targets";

  private static final WebhookTargets NONE = new WebhookTargets(List.of());

  private final List<WebhookTargetEntry> entries;

  private WebhookTargets(List<WebhookTargetEntry> entries) {
    this.entries = List.copyOf(entries);
  }

  /** The list of a node's whole config; none when the key is absent. */
  public static WebhookTargets from(Config config) {
    return config.hasPath(KEY) ? of(config.getStringList(KEY)) : NONE;
  }

  /** The list of the executor's own settings ({@code rota.runners.http} overlaid by the pool's). */
  static WebhookTargets fromExecutorSettings(Config settings) {
    return settings.hasPath("allowed-targets")
        ? of(settings.getStringList("allowed-targets"))
        : NONE;
  }

  /**
   * @throws IllegalArgumentException naming the first entry that is not a host, address, CIDR block
   *     or http(s) URL
   */
  public static WebhookTargets of(List<String> entries) {
    List<WebhookTargetEntry> parsed = new ArrayList<>();
    for (String entry : entries) {
      parsed.add(WebhookTargetEntry.parse(entry.strip()));
    }
    return new WebhookTargets(parsed);
  }

  public boolean isEmpty() {
    return entries.isEmpty();
  }

  /**
   * Why {@code url} may not be called, or empty when it may (as far as can be told without DNS).
   * The reason is a sentence about the URL's shape, never about what is behind it.
   */
  public Optional<String> refusal(String url) {
    URI uri;
    try {
      uri = new URI(url).normalize();
    } catch (URISyntaxException e) {
      return Optional.of("is not a URL");
    }
    String scheme = uri.getScheme() == null ? "" : uri.getScheme().toLowerCase(Locale.ROOT);
    if (!scheme.equals("http") && !scheme.equals("https")) {
      return Optional.of("is not an http(s) URL");
    }
    if (uri.getHost() == null || uri.getRawUserInfo() != null) {
      return Optional.of("must be http(s)://host[:port]/path, without user info");
    }
    Optional<List<String>> segments = segments(path(uri));
    if (segments.isEmpty()) {
      return Optional.of("has an encoded dot segment or separator in its path");
    }
    if (entries.stream().noneMatch(e -> e.allows(scheme, host(uri), port(uri), segments.get()))) {
      return Optional.of("is not an allowed webhook target (" + KEY + ")");
    }
    return Optional.empty();
  }

  /**
   * Resolves the host of an allowed URL once and returns the address to connect to. Blocks on DNS.
   *
   * @throws UnknownHostException when the host does not resolve
   * @throws RefusedAddress when any of its addresses is inward and not listed
   */
  InetAddress resolve(URI uri, Resolver resolver) throws UnknownHostException {
    InetAddress[] addresses = resolver.resolve(host(uri));
    for (InetAddress address : addresses) {
      if (isInward(address)
          && entries.stream()
              .noneMatch(e -> e.names(address) && (e.port() < 0 || e.port() == port(uri)))) {
        throw new RefusedAddress(host(uri), address);
      }
    }
    return addresses[0];
  }

  /** Name resolution, replaceable in tests. */
  @FunctionalInterface
  public interface Resolver {
    InetAddress[] resolve(String host) throws UnknownHostException;
  }

  /** A host that resolves to an address the list does not allow. */
  static final class RefusedAddress extends RuntimeException {
    final InetAddress address;

    RefusedAddress(String host, InetAddress address) {
      super(
          host + " resolves to " + address.getHostAddress() + ", an inward address",
          null,
          false,
          false);
      this.address = address;
    }
  }

  /**
   * Loopback, link-local, private (RFC 1918), unique-local (fc00::/7), shared (100.64.0.0/10),
   * unspecified, multicast, broadcast and 0.0.0.0/8, including IPv4 addresses mapped into IPv6.
   */
  static boolean isInward(InetAddress address) {
    if (address.isLoopbackAddress()
        || address.isLinkLocalAddress()
        || address.isSiteLocalAddress()
        || address.isAnyLocalAddress()
        || address.isMulticastAddress()) {
      return true;
    }
    byte[] b = address.getAddress();
    if (address instanceof Inet6Address) {
      if ((b[0] & 0xfe) == 0xfc) {
        return true;
      }
      boolean zeros = true;
      for (int i = 0; i < 10; i++) {
        zeros &= b[i] == 0;
      }
      // IPv4-mapped ::ffff:a.b.c.d and IPv4-compatible ::a.b.c.d carry an IPv4 address.
      if (zeros && ((b[10] & b[11] & 0xff) == 0xff || (b[10] | b[11]) == 0)) {
        return isInward(embedded(b, 12));
      }
      // NAT64: 64:ff9b::/96 (well-known) reaches a.b.c.d; the rest of 64:ff9b::/32 (64:ff9b:1::/48
      // is for local use) is taken as inward.
      if (b[0] == 0 && b[1] == 0x64 && (b[2] & 0xff) == 0xff && (b[3] & 0xff) == 0x9b) {
        boolean wellKnown = true;
        for (int i = 4; i < 12; i++) {
          wellKnown &= b[i] == 0;
        }
        return !wellKnown || isInward(embedded(b, 12));
      }
      // 6to4: 2002:AABB:CCDD::/48 reaches a.b.c.d = AA.BB.CC.DD.
      if (b[0] == 0x20 && b[1] == 0x02) {
        return isInward(embedded(b, 2));
      }
      return false;
    }
    int first = b[0] & 0xff;
    int second = b[1] & 0xff;
    return first == 0
        || (first == 100 && second >= 64 && second < 128)
        || (first == 255 && (b[1] & b[2] & b[3] & 0xff) == 0xff);
  }

  /** The IPv4 address in the four bytes from {@code from}. */
  private static InetAddress embedded(byte[] b, int from) {
    try {
      return InetAddress.getByAddress(new byte[] {b[from], b[from + 1], b[from + 2], b[from + 3]});
    } catch (UnknownHostException e) {
      throw new IllegalStateException(e);
    }
  }

  /**
   * A raw path's segments, percent-decoded, without a trailing empty one; empty when one decodes to
   * {@code .} or {@code ..} or holds a {@code /}, {@code \} or NUL (or is not decodable).
   */
  static Optional<List<String>> segments(String rawPath) {
    List<String> out = new ArrayList<>();
    String[] raw = rawPath.split("/", -1);
    for (int i = 1; i < raw.length; i++) {
      String segment;
      try {
        segment = java.net.URLDecoder.decode(raw[i].replace("+", "%2B"), StandardCharsets.UTF_8);
      } catch (IllegalArgumentException e) {
        return Optional.empty();
      }
      if (segment.equals(".")
          || segment.equals("..")
          || segment.contains("/")
          || segment.contains("\\")
          || segment.indexOf('\0') >= 0) {
        return Optional.empty();
      }
      if (i < raw.length - 1 || !segment.isEmpty()) {
        out.add(segment);
      }
    }
    return Optional.of(out);
  }

  static String host(URI uri) {
    String host = uri.getHost().toLowerCase(Locale.ROOT);
    return host.startsWith("[") && host.endsWith("]") ? host.substring(1, host.length() - 1) : host;
  }

  static int port(URI uri) {
    if (uri.getPort() >= 0) {
      return uri.getPort();
    }
    return "https".equalsIgnoreCase(uri.getScheme()) ? 443 : 80;
  }

  static String path(URI uri) {
    return uri.getRawPath() == null || uri.getRawPath().isEmpty() ? "/" : uri.getRawPath();
  }

  /** Whether {@code host} is written as an IP address (so no DNS is involved). */
  static Optional<InetAddress> literal(String host) {
    boolean ipv4 = host.matches("[0-9]{1,3}(\\.[0-9]{1,3}){3}");
    if (!ipv4 && !host.contains(":")) {
      return Optional.empty();
    }
    try {
      return Optional.of(InetAddress.getByName(host));
    } catch (UnknownHostException e) {
      return Optional.empty();
    }
  }
}
