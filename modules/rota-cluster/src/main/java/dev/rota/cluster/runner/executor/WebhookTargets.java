package dev.rota.cluster.runner.executor;

import com.typesafe.config.Config;
import com.typesafe.config.ConfigUtil;
import java.net.Inet6Address;
import java.net.InetAddress;
import java.net.URI;
import java.net.URISyntaxException;
import java.net.UnknownHostException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

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
 * {@code /}, {@code \} or NUL, or a {@code ;} (a path parameter, plain or encoded), is refused
 * whatever the entries: a server may decode and resolve it out of the allowed prefix.
 *
 * <p>Targets may be bound to tenants ({@code tenant-targets}, decision 114): a URL that a tenant's
 * entry matches serves only that tenant's agents, even where a shared entry matches it too.
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

  /** The key of the targets bound to tenants: {@code <tenant> { allowed-targets, headers }}. */
  public static final String TENANT_KEY = "rota.runners.http.tenant-targets";

  private static final WebhookTargets NONE = new WebhookTargets(List.of(), Map.of());

  private final List<WebhookTargetEntry> entries;
  private final Map<String, List<WebhookTargetEntry>> byTenant;

  private WebhookTargets(
      List<WebhookTargetEntry> entries, Map<String, List<WebhookTargetEntry>> byTenant) {
    this.entries = List.copyOf(entries);
    this.byTenant = Map.copyOf(byTenant);
  }

  /** The lists of a node's whole config ({@code rota.runners.http}); none when absent. */
  public static WebhookTargets from(Config config) {
    return config.hasPath("rota.runners.http")
        ? fromExecutorSettings(config.getConfig("rota.runners.http"))
        : NONE;
  }

  /**
   * The lists of the executor's own settings ({@code rota.runners.http} overlaid by the pool's):
   * {@code allowed-targets}, shared by every tenant, and {@code tenant-targets}.
   */
  static WebhookTargets fromExecutorSettings(Config settings) {
    List<WebhookTargetEntry> shared =
        settings.hasPath("allowed-targets")
            ? parse(settings.getStringList("allowed-targets"))
            : List.of();
    Map<String, List<WebhookTargetEntry>> byTenant = new LinkedHashMap<>();
    for (Map.Entry<String, Config> tenant : tenantSettings(settings).entrySet()) {
      Config c = tenant.getValue();
      byTenant.put(
          tenant.getKey(),
          c.hasPath("allowed-targets") ? parse(c.getStringList("allowed-targets")) : List.of());
    }
    return new WebhookTargets(shared, byTenant);
  }

  /** Each tenant's block of {@code tenant-targets}, by tenant name. */
  static Map<String, Config> tenantSettings(Config settings) {
    Map<String, Config> out = new LinkedHashMap<>();
    if (settings.hasPath("tenant-targets")) {
      for (String tenant : settings.getObject("tenant-targets").keySet()) {
        out.put(tenant, settings.getConfig(ConfigUtil.joinPath("tenant-targets", tenant)));
      }
    }
    return out;
  }

  /**
   * Targets shared by every tenant.
   *
   * @throws IllegalArgumentException naming the first entry that is not a host, address, CIDR block
   *     or http(s) URL
   */
  public static WebhookTargets of(List<String> entries) {
    return new WebhookTargets(parse(entries), Map.of());
  }

  private static List<WebhookTargetEntry> parse(List<String> entries) {
    List<WebhookTargetEntry> parsed = new ArrayList<>();
    for (String entry : entries) {
      parsed.add(WebhookTargetEntry.parse(entry.strip()));
    }
    return parsed;
  }

  public boolean isEmpty() {
    return entries.isEmpty() && byTenant.values().stream().allMatch(List::isEmpty);
  }

  /** {@link #refusal(String, String)} for a caller of no tenant: shared targets only. */
  public Optional<String> refusal(String url) {
    return refusal(url, null);
  }

  /**
   * Why an agent of {@code tenant} may not call {@code url}, or empty when it may (as far as can be
   * told without DNS). A URL that a tenant's {@code tenant-targets} entry matches is bound to that
   * tenant (to each tenant whose list matches it): only its agents may use it, whatever the shared
   * list says. Any other URL must match a shared entry. The reason is a sentence about the URL's
   * shape, never about what is behind it nor whose it is.
   */
  public Optional<String> refusal(String url, String tenant) {
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
    Set<String> owners = owners(scheme, uri, segments.get());
    boolean allowed =
        owners.isEmpty()
            ? matches(entries, scheme, uri, segments.get())
            : tenant != null && owners.contains(tenant);
    return allowed
        ? Optional.empty()
        : Optional.of("is not an allowed webhook target (" + KEY + ")");
  }

  /**
   * Whether {@code url} is one of {@code tenant}'s own targets (its {@code tenant-targets} entries
   * match it): the call then carries that tenant's headers instead of the shared ones.
   */
  public boolean boundTo(String url, String tenant) {
    URI uri;
    try {
      uri = new URI(url).normalize();
    } catch (URISyntaxException e) {
      return false;
    }
    if (uri.getHost() == null || uri.getScheme() == null) {
      return false;
    }
    String scheme = uri.getScheme().toLowerCase(Locale.ROOT);
    return segments(path(uri)).map(s -> matches(ofTenant(tenant), scheme, uri, s)).orElse(false);
  }

  private List<WebhookTargetEntry> ofTenant(String tenant) {
    return tenant == null ? List.of() : byTenant.getOrDefault(tenant, List.of());
  }

  private Set<String> owners(String scheme, URI uri, List<String> segments) {
    Set<String> owners = new HashSet<>();
    byTenant.forEach(
        (name, list) -> {
          if (matches(list, scheme, uri, segments)) {
            owners.add(name);
          }
        });
    return owners;
  }

  private static boolean matches(
      List<WebhookTargetEntry> list, String scheme, URI uri, List<String> segments) {
    return list.stream().anyMatch(e -> e.allows(scheme, host(uri), port(uri), segments));
  }

  /**
   * Resolves the host of an allowed URL once and returns the address to connect to. Blocks on DNS.
   *
   * @throws UnknownHostException when the host does not resolve
   * @throws RefusedAddress when any of its addresses is inward and not listed
   */
  InetAddress resolve(URI uri, Resolver resolver) throws UnknownHostException {
    return resolve(uri, null, resolver);
  }

  /** {@link #resolve(URI, Resolver)} where {@code tenant}'s own address entries also name. */
  InetAddress resolve(URI uri, String tenant, Resolver resolver) throws UnknownHostException {
    InetAddress[] addresses = resolver.resolve(host(uri));
    List<WebhookTargetEntry> naming = new ArrayList<>(entries);
    naming.addAll(ofTenant(tenant));
    for (InetAddress address : addresses) {
      if (isInward(address)
          && naming.stream()
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
   * {@code .} or {@code ..} or holds a {@code /}, {@code \}, {@code ;} or NUL (or is not
   * decodable). A {@code ;} starts a path parameter, which servers such as Tomcat drop before they
   * route: {@code /rota/..;/admin} would reach {@code /admin}.
   */
  static Optional<List<String>> segments(String rawPath) {
    List<String> out = new ArrayList<>();
    String[] raw = rawPath.split("/", -1);
    for (int i = 1; i < raw.length; i++) {
      if (raw[i].indexOf(';') >= 0) {
        return Optional.empty();
      }
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
          || segment.indexOf(';') >= 0
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
