package dev.rota.server;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.rota.cluster.system.SessionLimits;
import dev.rota.server.RotaSettings.DbSettings;
import java.io.IOException;
import java.net.ServerSocket;
import java.time.Duration;
import org.junit.jupiter.api.Test;

class DatabaseTest {

  @Test
  void refusesToOpenAnUnreachableDatabaseWithAOneLineReason() throws IOException {
    int closedPort;
    try (ServerSocket socket = new ServerSocket(0)) {
      closedPort = socket.getLocalPort();
    }
    DbSettings settings =
        new DbSettings(
            DatabaseDialect.POSTGRES,
            "org.postgresql.Driver",
            "jdbc:postgresql://127.0.0.1:" + closedPort + "/rota?password=hunter2",
            "rota",
            "hunter2",
            2,
            Duration.ofSeconds(2),
            new SessionLimits(
                Duration.ofSeconds(1),
                Duration.ofSeconds(3),
                Duration.ofSeconds(30),
                Duration.ofSeconds(40),
                true));

    StartupException e = assertThrows(StartupException.class, () -> Database.open(settings));

    assertTrue(
        e.getMessage().startsWith("database jdbc:postgresql://127.0.0.1:" + closedPort + "/rota"),
        e.getMessage());
    assertTrue(e.getMessage().contains("is unreachable: "), e.getMessage());
    assertFalse(e.getMessage().contains("hunter2"), e.getMessage());
    assertFalse(e.getMessage().contains("\n"), e.getMessage());
  }
}
