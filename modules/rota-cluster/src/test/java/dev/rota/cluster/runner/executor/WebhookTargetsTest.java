package dev.rota.cluster.runner.executor;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.InetAddress;
import java.net.URI;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class WebhookTargetsTest {
  private static final WebhookTargets TARGETS =
      WebhookTargets.of(
          List.of(
              "hooks.example.com",
              "api.example.org:8443",
              "*.agents.example.net",
              "https://prefix.example.com/rota/",
              "127.0.0.1:9000",
              "10.96.0.0/12"));

  private static boolean allowed(String url) {
    return TARGETS.refusal(url).isEmpty();
  }

  @Test
  void allowsUrlsMatchingAnEntry() {
    assertTrue(allowed("https://hooks.example.com/any/path"));
    assertTrue(allowed("http://HOOKS.example.com:8080/x"));
    assertTrue(allowed("https://api.example.org:8443/x"));
    assertTrue(allowed("https://a.agents.example.net/x"));
    assertTrue(allowed("https://prefix.example.com/rota/agent-1"));
    assertTrue(allowed("http://127.0.0.1:9000/hook"));
    assertTrue(allowed("http://10.100.1.2/hook"));
  }

  @Test
  void refusesUrlsOutsideEveryEntry() {
    assertFalse(allowed("https://api.example.org/x"), "another port");
    assertFalse(allowed("https://agents.example.net/x"), "a wildcard needs a subdomain");
    assertFalse(allowed("http://prefix.example.com/rota/x"), "another scheme");
    assertFalse(allowed("https://prefix.example.com/other"), "another path");
    assertFalse(allowed("https://prefix.example.com/rota/../admin"), "a path that climbs out");
    assertFalse(allowed("http://127.0.0.1:8080/admin/pause"), "the node's own port");
    assertFalse(allowed("http://169.254.169.254/latest/meta-data/"));
    assertFalse(allowed("http://10.128.0.1/x"), "outside the CIDR block");
    assertFalse(allowed("https://hooks.example.com.evil.test/x"));
    assertEquals(
        Optional.of("must be http(s)://host[:port]/path, without user info"),
        TARGETS.refusal("https://hooks.example.com@evil.test/x"));
    assertEquals(Optional.of("is not an http(s) URL"), TARGETS.refusal("file:///etc/passwd"));
    assertEquals(Optional.of("is not a URL"), TARGETS.refusal("http://exa mple"));
  }

  @Test
  void inwardAddressesAreRecognised() throws Exception {
    for (String inward :
        List.of(
            "127.0.0.1",
            "10.1.2.3",
            "172.16.0.1",
            "192.168.1.1",
            "169.254.169.254",
            "100.64.0.1",
            "0.0.0.0",
            "224.0.0.1",
            "255.255.255.255",
            "::1",
            "fe80::1",
            "fd00:ec2::254",
            "::ffff:127.0.0.1")) {
      assertTrue(WebhookTargets.isInward(InetAddress.getByName(inward)), inward);
    }
    for (String outward : List.of("93.184.216.34", "8.8.8.8", "2606:4700::1111")) {
      assertFalse(WebhookTargets.isInward(InetAddress.getByName(outward)), outward);
    }
  }

  @Test
  void resolvedInwardAddressMustBeNamedByAnAddressOrCidrEntry() throws Exception {
    URI hook = URI.create("https://hooks.example.com/x");
    assertThrows(
        WebhookTargets.RefusedAddress.class,
        () -> TARGETS.resolve(hook, host -> new InetAddress[] {InetAddress.getByName("10.0.0.1")}));
    assertEquals(
        InetAddress.getByName("10.96.0.10"),
        TARGETS.resolve(hook, host -> new InetAddress[] {InetAddress.getByName("10.96.0.10")}));
    assertThrows(
        WebhookTargets.RefusedAddress.class,
        () ->
            TARGETS.resolve(
                hook,
                host ->
                    new InetAddress[] {
                      InetAddress.getByName("93.184.216.34"), InetAddress.getByName("127.0.0.2")
                    }),
        "every address of the answer is checked");
  }

  @Test
  void malformedEntriesFailAtStart() {
    for (String bad : List.of("", "ftp://x/", "10.0.0.0/33", "host:0", "bad host", "a/b")) {
      var error =
          assertThrows(IllegalArgumentException.class, () -> WebhookTargets.of(List.of(bad)), bad);
      assertTrue(error.getMessage().startsWith(WebhookTargets.KEY), error.getMessage());
    }
  }

  private static final WebhookTargets PREFIX =
      WebhookTargets.of(List.of("http://127.0.0.1:9/rota"));

  @Test
  void aUrlPrefixMatchesWholePathSegments() {
    assertTrue(PREFIX.refusal("http://127.0.0.1:9/rota").isEmpty());
    assertTrue(PREFIX.refusal("http://127.0.0.1:9/rota/").isEmpty());
    assertTrue(PREFIX.refusal("http://127.0.0.1:9/rota/hook").isEmpty());
    assertTrue(PREFIX.refusal("http://127.0.0.1:9/rota/a%20b").isEmpty(), "encoded, not a dot");
    assertFalse(PREFIX.refusal("http://127.0.0.1:9/rotaX/hook").isEmpty(), "/rotaX is not /rota");
    assertFalse(PREFIX.refusal("http://127.0.0.1:9/rot").isEmpty());
    assertFalse(PREFIX.refusal("http://127.0.0.1:9/").isEmpty());
  }

  @Test
  void encodedDotSegmentsAndSeparatorsAreRefused() {
    for (String url :
        List.of(
            "http://127.0.0.1:9/rota/%2e%2e/admin",
            "http://127.0.0.1:9/rota/%2E%2E/admin",
            "http://127.0.0.1:9/rota/.%2e/admin",
            "http://127.0.0.1:9/rota/%2e/x",
            "http://127.0.0.1:9/rota/x%2f..%2f..%2fadmin",
            "http://127.0.0.1:9/rota/x%5c..%5cadmin",
            "http://127.0.0.1:9/rota/x%00")) {
      assertEquals(
          Optional.of("has an encoded dot segment or separator in its path"),
          PREFIX.refusal(url),
          url);
    }
    assertFalse(PREFIX.refusal("http://127.0.0.1:9/rota/../admin").isEmpty(), "plain dots");
  }

  @Test
  void pathParametersAndDotDotSemicolonAreRefused() {
    // A Java or Tomcat server drops ";..." from a segment before it routes: "/rota/..;/admin"
    // reaches /admin, out of the allowed prefix.
    for (String url :
        List.of(
            "http://127.0.0.1:9/rota/..;/admin",
            "http://127.0.0.1:9/rota/..;x=1/admin",
            "http://127.0.0.1:9/rota/hook;jsessionid=1",
            "http://127.0.0.1:9/rota;/hook",
            "http://127.0.0.1:9/rota/%2e%2e;/admin",
            "http://127.0.0.1:9/rota/..%3b/admin",
            "http://127.0.0.1:9/rota/..%3B/admin",
            "http://127.0.0.1:9/rota/hook%3bx")) {
      assertEquals(
          Optional.of("has an encoded dot segment or separator in its path"),
          PREFIX.refusal(url),
          url);
    }
    assertTrue(PREFIX.refusal("http://127.0.0.1:9/rota/hook?a=1;b=2").isEmpty(), "a query");
  }

  @Test
  void aTargetBoundToATenantServesThatTenantOnly() {
    var targets =
        WebhookTargets.from(
            com.typesafe.config.ConfigFactory.parseString(
                """
                rota.runners.http {
                  allowed-targets = ["*.example.com"]
                  tenant-targets {
                    acme { allowed-targets = ["https://hooks.example.com/acme/"] }
                    globex { allowed-targets = ["https://hooks.example.com/globex/", "10.1.2.3:443"] }
                  }
                }
                """));
    String acmeHook = "https://hooks.example.com/acme/in";

    assertTrue(targets.refusal(acmeHook, "acme").isEmpty());
    assertTrue(targets.refusal("https://hooks.example.com/globex/in", "globex").isEmpty());
    assertTrue(targets.refusal("https://10.1.2.3/in", "globex").isEmpty());
    assertTrue(targets.refusal("https://other.example.com/x", "acme").isEmpty(), "shared");
    for (String tenant : List.of("globex", "default")) {
      // Bound to acme: refused to the others although the shared "*.example.com" covers it, with
      // the words of any unlisted URL (so a tenant cannot probe another's targets).
      assertEquals(
          Optional.of("is not an allowed webhook target (rota.runners.http.allowed-targets)"),
          targets.refusal(acmeHook, tenant),
          tenant);
    }
    assertFalse(targets.refusal("https://10.1.2.3/in", "acme").isEmpty());
    assertFalse(targets.boundTo("https://other.example.com/x", "acme"));
    assertTrue(targets.boundTo(acmeHook, "acme"));
  }

  @Test
  void addressAndCidrEntriesMayCarryAPort() throws Exception {
    var targets =
        WebhookTargets.of(List.of("10.96.0.0/12:443", "[fd00::]/8:8443", "192.168.5.0/24"));
    assertTrue(targets.refusal("https://10.96.0.10/hook").isEmpty());
    assertTrue(targets.refusal("http://10.96.0.10:443/hook").isEmpty());
    assertFalse(targets.refusal("http://10.96.0.10/hook").isEmpty(), "port 80 is not 443");
    assertFalse(targets.refusal("http://10.96.0.10:8558/cluster/members").isEmpty());
    assertTrue(targets.refusal("https://[fd00::1]:8443/x").isEmpty());
    assertFalse(targets.refusal("https://[fd00::1]/x").isEmpty());
    assertTrue(targets.refusal("http://192.168.5.7:1234/x").isEmpty(), "no port: any port");
    // A listed name that resolves into the block is called only on the entry's port.
    var named = WebhookTargets.of(List.of("svc.example.com", "10.96.0.0/12:443"));
    var inBlock = InetAddress.getByName("10.96.0.10");
    assertEquals(
        inBlock,
        named.resolve(URI.create("https://svc.example.com/x"), h -> new InetAddress[] {inBlock}));
    assertThrows(
        WebhookTargets.RefusedAddress.class,
        () ->
            named.resolve(
                URI.create("http://svc.example.com:8558/x"), h -> new InetAddress[] {inBlock}));
    for (String bad : List.of("10.0.0.0/8:0", "10.0.0.0/8:x", "10.0.0.0/8:70000")) {
      assertThrows(IllegalArgumentException.class, () -> WebhookTargets.of(List.of(bad)), bad);
    }
  }

  @Test
  void ipv4InsideIpv6IsInwardWhenTheIpv4AddressIs() throws Exception {
    for (String inward :
        List.of(
            "64:ff9b::7f00:1", // NAT64 of 127.0.0.1
            "64:ff9b::a9fe:a9fe", // NAT64 of 169.254.169.254
            "64:ff9b::a00:1", // NAT64 of 10.0.0.1
            "64:ff9b:1::a00:1", // local-use NAT64
            "2002:7f00:1::1", // 6to4 of 127.0.0.1
            "2002:a9fe:a9fe::", // 6to4 of 169.254.169.254
            "2002:c0a8:101::1", // 6to4 of 192.168.1.1
            "::7f00:1", // IPv4-compatible 127.0.0.1
            "::a9fe:a9fe", // IPv4-compatible 169.254.169.254
            "::a00:1", // IPv4-compatible 10.0.0.1
            "::ffff:a9fe:a9fe", // IPv4-mapped 169.254.169.254
            "::ffff:10.0.0.1")) {
      assertTrue(WebhookTargets.isInward(InetAddress.getByName(inward)), inward);
    }
    for (String outward : List.of("64:ff9b::808:808", "2002:808:808::1", "::808:808")) {
      assertFalse(WebhookTargets.isInward(InetAddress.getByName(outward)), outward);
    }
    var hooks = WebhookTargets.of(List.of("hooks.example.com"));
    assertThrows(
        WebhookTargets.RefusedAddress.class,
        () ->
            hooks.resolve(
                URI.create("https://hooks.example.com/x"),
                h -> new InetAddress[] {InetAddress.getByName("64:ff9b::a9fe:a9fe")}),
        "a name resolving to the metadata endpoint through NAT64");
  }
}
