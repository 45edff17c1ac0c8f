package dev.rota.client;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.Socket;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyStore;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLServerSocket;
import javax.net.ssl.SSLSocket;
import javax.net.ssl.TrustManagerFactory;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The event stream's TLS checks the server's name: a certificate that the client trusts but that is
 * for another name is refused before the bearer token is sent. Certificates are made with the JDK's
 * keytool.
 */
class SseHostnameTest {
  @TempDir Path tmp;
  private SSLContext previous;

  @BeforeEach
  void remember() throws Exception {
    previous = SSLContext.getDefault();
  }

  @AfterEach
  void restore() {
    SSLContext.setDefault(previous);
  }

  /** A PKCS12 key store with one self-signed EC key pair for {@code san}, made by keytool. */
  static KeyStore keyStore(Path dir, String name, String san) throws Exception {
    Path keytool = Path.of(System.getProperty("java.home"), "bin", "keytool");
    assertTrue(Files.isExecutable(keytool), "this test needs the JDK's keytool at " + keytool);
    Path file = dir.resolve(name + ".p12");
    Process p =
        new ProcessBuilder(
                keytool.toString(),
                "-genkeypair",
                "-alias",
                name,
                "-keyalg",
                "EC",
                "-groupname",
                "secp256r1",
                "-dname",
                "CN=" + name,
                "-ext",
                "SAN=" + san,
                "-validity",
                "2",
                "-storetype",
                "PKCS12",
                "-keystore",
                file.toString(),
                "-storepass",
                "changeit",
                "-keypass",
                "changeit")
            .redirectErrorStream(true)
            .start();
    String output = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertTrue(p.waitFor(60, TimeUnit.SECONDS), "keytool did not finish");
    assertEquals(0, p.exitValue(), "keytool failed: " + output);
    KeyStore store = KeyStore.getInstance("PKCS12");
    try (InputStream in = Files.newInputStream(file)) {
      store.load(in, "changeit".toCharArray());
    }
    return store;
  }

  /** Serves one TLS connection with {@code keys}; completes with the request's header lines. */
  private static CompletableFuture<List<String>> serveOnce(SSLServerSocket server) {
    return CompletableFuture.supplyAsync(
        () -> {
          List<String> lines = new ArrayList<>();
          try (SSLSocket socket = (SSLSocket) server.accept()) {
            socket.setSoTimeout(10_000);
            BufferedReader in =
                new BufferedReader(
                    new InputStreamReader(socket.getInputStream(), StandardCharsets.UTF_8));
            for (String line = in.readLine();
                line != null && !line.isEmpty();
                line = in.readLine()) {
              lines.add(line);
            }
            OutputStream out = socket.getOutputStream();
            out.write(
                ("HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nContent-Length: 0\r\n\r\n")
                    .getBytes(StandardCharsets.US_ASCII));
            out.flush();
          } catch (IOException e) {
            lines.add("failed: " + e);
          }
          return lines;
        });
  }

  private SSLServerSocket server(KeyStore keys) throws Exception {
    KeyManagerFactory kmf = KeyManagerFactory.getInstance(KeyManagerFactory.getDefaultAlgorithm());
    kmf.init(keys, "changeit".toCharArray());
    SSLContext context = SSLContext.getInstance("TLS");
    context.init(kmf.getKeyManagers(), null, null);
    return (SSLServerSocket)
        context.getServerSocketFactory().createServerSocket(0, 1, InetAddress.getLoopbackAddress());
  }

  /** Makes the JVM's default TLS context trust exactly these certificates. */
  private static void trust(KeyStore... stores) throws Exception {
    KeyStore trusted = KeyStore.getInstance("PKCS12");
    trusted.load(null, null);
    for (KeyStore store : stores) {
      String alias = store.aliases().nextElement();
      trusted.setCertificateEntry(alias, store.getCertificate(alias));
    }
    TrustManagerFactory tmf =
        TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
    tmf.init(trusted);
    SSLContext context = SSLContext.getInstance("TLS");
    context.init(null, tmf.getTrustManagers(), null);
    SSLContext.setDefault(context);
  }

  private static SseConnection open(int port) throws IOException {
    return SseConnection.open(
        URI.create("https://localhost:" + port + "/v1/events"),
        "Bearer s3cret-token",
        null,
        Duration.ofSeconds(5),
        Duration.ofSeconds(5),
        new Socket());
  }

  @Test
  void aTrustedCertificateForAnotherNameIsRefusedBeforeTheTokenIsSent() throws Exception {
    KeyStore other = keyStore(tmp, "other", "dns:other.example");
    trust(other);
    try (SSLServerSocket server = server(other)) {
      var request = serveOnce(server);
      IOException refused =
          assertThrows(IOException.class, () -> open(server.getLocalPort()).close());
      assertTrue(
          String.valueOf(refused.getMessage()).toLowerCase().contains("localhost")
              || refused instanceof javax.net.ssl.SSLHandshakeException,
          refused.toString());
      List<String> received = request.get(10, TimeUnit.SECONDS);
      assertFalse(
          received.stream().anyMatch(l -> l.contains("s3cret-token")),
          "the token reached a server with another name's certificate: " + received);
    }
  }

  @Test
  void aCertificateForTheHostConnects() throws Exception {
    KeyStore local = keyStore(tmp, "local", "dns:localhost,ip:127.0.0.1");
    trust(local);
    try (SSLServerSocket server = server(local)) {
      var request = serveOnce(server);
      try (SseConnection connection = open(server.getLocalPort())) {
        assertEquals(200, connection.status());
      }
      assertTrue(
          request.get(10, TimeUnit.SECONDS).contains("Authorization: Bearer s3cret-token"),
          "the stream's request reached the server");
    }
  }
}
