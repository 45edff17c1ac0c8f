package dev.rota.http;

import java.net.InetAddress;
import java.net.URI;
import java.net.URISyntaxException;
import java.util.Locale;
import java.util.Optional;
import java.util.Set;
import java.util.function.Supplier;
import java.util.regex.Pattern;
import org.apache.pekko.http.javadsl.model.AttributeKeys;
import org.apache.pekko.http.javadsl.model.HttpHeader;
import org.apache.pekko.http.javadsl.model.HttpRequest;
import org.apache.pekko.http.javadsl.model.MediaType;
import org.apache.pekko.http.javadsl.model.RemoteAddress;
import org.apache.pekko.http.javadsl.model.headers.Host;
import org.apache.pekko.http.javadsl.server.AllDirectives;
import org.apache.pekko.http.javadsl.server.Route;

/**
 * Keeps other web sites out of the API (decision 51). A browser lets any page send simple requests
 * to {@code 127.0.0.1:8080} and, after a DNS rebinding, to any name, so before any route runs:
 *
 * <ul>
 *   <li>a request whose {@code Host} is not a loopback name or address is refused (403) while the
 *       API runs without tokens and without {@code allow-anonymous}, the loopback-only mode: a page
 *       whose name was rebound to 127.0.0.1 still sends its own name; in that mode a connection
 *       that does not come from a loopback address, or that a proxy relayed for another machine
 *       ({@link #fromThisMachine}), is refused too, whatever {@code Host} it says;
 *   <li>a request whose {@code Origin} is neither this node's (the {@code Host} it was sent to) nor
 *       in {@code rota.http.allowed-origins} is refused (403): browsers send it on every cross-site
 *       request that is not a plain navigation, and clients outside a browser do not send it;
 *   <li>a request with a body must say {@code Content-Type: application/json} (415): the only types
 *       a page may send cross-site without asking first are form and text types.
 * </ul>
 *
 * The dashboard is served by the node itself, so its requests pass all three.
 */
final class CrossSiteGuard extends AllDirectives {
  private final boolean loopbackOnly;
  private final Set<String> allowedOrigins;

  CrossSiteGuard(HttpSettings settings) {
    this.loopbackOnly = !settings.authEnabled() && !settings.allowAnonymous();
    this.allowedOrigins = settings.allowedOrigins();
  }

  Route wrap(Supplier<Route> inner) {
    return extractRequest(
        request -> {
          check(request);
          return inner.get();
        });
  }

  private void check(HttpRequest request) {
    Optional<Host> host = request.getHeader(Host.class);
    if (loopbackOnly && host.isPresent() && !isLoopbackName(host.get().host().address())) {
      throw new ApiException(
          ApiError.FORBIDDEN,
          "without tokens the API answers only requests addressed to localhost, 127.0.0.1 or"
              + " [::1]; configure tokens to serve other names");
    }
    if (loopbackOnly && !fromThisMachine(request)) {
      throw new ApiException(
          ApiError.FORBIDDEN,
          "without tokens the API answers only connections from this machine that no proxy"
              + " relayed for another; configure tokens to serve others");
    }
    Optional<String> origin = request.getHeader("Origin").map(h -> h.value().strip());
    if (origin.isPresent() && !sameOrigin(origin.get(), host) && !allowed(origin.get())) {
      throw new ApiException(
          ApiError.FORBIDDEN,
          "cross-origin requests are refused: add the page's origin to rota.http.allowed-origins"
              + " to allow it");
    }
    if (!request.entity().isKnownEmpty()
        && !isJson(request.entity().getContentType().mediaType())) {
      throw new ApiException(
          ApiError.UNSUPPORTED_MEDIA_TYPE,
          "a request body must be sent as Content-Type: application/json");
    }
  }

  /**
   * The connection comes from a loopback address (the server's {@code remote-address-attribute},
   * which only the connection sets; absent means the setting is off, and nothing is trusted), and
   * no forwarding header ({@code Forwarded}, {@code X-Forwarded-For}, {@code X-Real-IP}) names
   * anything else: a proxy on this machine that relays others' requests, whatever {@code Host} it
   * sends, is refused.
   */
  static boolean fromThisMachine(HttpRequest request) {
    boolean loopbackPeer =
        request
            .getAttribute(AttributeKeys.remoteAddress)
            .flatMap(RemoteAddress::getAddress)
            .map(InetAddress::isLoopbackAddress)
            .orElse(false);
    if (!loopbackPeer) {
      return false;
    }
    for (HttpHeader header : request.getHeaders()) {
      String name = header.lowercaseName();
      if (name.equals("x-forwarded-for") || name.equals("x-real-ip")) {
        for (String hop : header.value().split(",")) {
          if (!isLoopbackName(unquoted(hop))) {
            return false;
          }
        }
      } else if (name.equals("forwarded")) {
        for (String pair : header.value().split("[,;]")) {
          String[] kv = pair.split("=", 2);
          if (kv.length == 2
              && kv[0].strip().equalsIgnoreCase("for")
              && !isLoopbackName(unquoted(kv[1]))) {
            return false;
          }
        }
      }
    }
    return true;
  }

  /** A forwarded address without quotes, brackets' port, or IPv4 port. */
  private static String unquoted(String value) {
    String v = value.strip();
    if (v.length() >= 2 && v.startsWith("\"") && v.endsWith("\"")) {
      v = v.substring(1, v.length() - 1);
    }
    if (v.startsWith("[")) {
      int close = v.indexOf(']');
      return close < 0 ? v : v.substring(0, close + 1);
    }
    int colon = v.indexOf(':');
    return colon >= 0 && colon == v.lastIndexOf(':') ? v.substring(0, colon) : v;
  }

  private static boolean isJson(MediaType type) {
    return type.mainType().equalsIgnoreCase("application")
        && type.subType().equalsIgnoreCase("json");
  }

  /** localhost (and names under it), 127.0.0.0/8 and ::1, written as a browser sends them. */
  private static final Pattern LOOPBACK_V4 =
      Pattern.compile("127(\\.(25[0-5]|2[0-4][0-9]|1[0-9][0-9]|[1-9]?[0-9])){3}");

  static boolean isLoopbackName(String host) {
    String name = host.toLowerCase(Locale.ROOT);
    if (name.endsWith(".")) {
      name = name.substring(0, name.length() - 1);
    }
    if (name.equals("localhost") || name.endsWith(".localhost")) {
      return true;
    }
    if (name.equals("[::1]") || name.equals("::1")) {
      return true;
    }
    return LOOPBACK_V4.matcher(name).matches();
  }

  private boolean allowed(String origin) {
    return normalise(origin).map(allowedOrigins::contains).orElse(false);
  }

  /**
   * The origin names the host and port the request was sent to (the scheme may differ by proxy).
   */
  private static boolean sameOrigin(String origin, Optional<Host> host) {
    if (host.isEmpty()) {
      return false;
    }
    Optional<URI> parsed = parse(origin);
    if (parsed.isEmpty()) {
      return false;
    }
    URI uri = parsed.get();
    String originHost = unbracketed(uri.getHost());
    String requestHost = unbracketed(host.get().host().address());
    return originHost.equals(requestHost)
        && explicitPort(uri.getPort()) == explicitPort(host.get().port());
  }

  private static String unbracketed(String host) {
    String name = host.toLowerCase(Locale.ROOT);
    return name.startsWith("[") && name.endsWith("]") ? name.substring(1, name.length() - 1) : name;
  }

  /** 80, 443 and "none" all mean the scheme's default port. */
  private static int explicitPort(int port) {
    return port == 80 || port == 443 || port <= 0 ? 0 : port;
  }

  /** {@code scheme://host[:port]} in lower case without a default port, or empty if not one. */
  static Optional<String> normalise(String origin) {
    return parse(origin)
        .map(
            uri -> {
              String scheme = uri.getScheme().toLowerCase(Locale.ROOT);
              int port = uri.getPort();
              boolean defaultPort =
                  port < 0
                      || (scheme.equals("http") && port == 80)
                      || (scheme.equals("https") && port == 443);
              return scheme
                  + "://"
                  + uri.getHost().toLowerCase(Locale.ROOT)
                  + (defaultPort ? "" : ":" + port);
            });
  }

  private static Optional<URI> parse(String origin) {
    try {
      URI uri = new URI(origin.endsWith("/") ? origin.substring(0, origin.length() - 1) : origin);
      String scheme = uri.getScheme();
      if (scheme == null
          || !(scheme.equalsIgnoreCase("http") || scheme.equalsIgnoreCase("https"))
          || uri.getHost() == null
          || (uri.getRawPath() != null && !uri.getRawPath().isEmpty())
          || uri.getRawQuery() != null
          || uri.getRawUserInfo() != null) {
        return Optional.empty();
      }
      return Optional.of(uri);
    } catch (URISyntaxException e) {
      return Optional.empty();
    }
  }
}
