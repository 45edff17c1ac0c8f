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
}
