package dev.rota.server;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.Optional;
import org.apache.pekko.actor.CoordinatedShutdown;
import org.junit.jupiter.api.Test;

class MainTest {

  @Test
  void aNodeAskedToStopExitsWithZero() {
    assertEquals(0, Main.exitStatus(Optional.empty()));
    assertEquals(0, Main.exitStatus(Optional.of(CoordinatedShutdown.jvmExitReason())));
    assertEquals(0, Main.exitStatus(Optional.of(CoordinatedShutdown.clusterLeavingReason())));
    assertEquals(0, Main.exitStatus(Optional.of(CoordinatedShutdown.actorSystemTerminateReason())));
  }

  @Test
  void aDownedNodeExitsNonZeroSoThatItsSupervisorRestartsIt() {
    assertEquals(
        Main.EXIT_DOWNED, Main.exitStatus(Optional.of(CoordinatedShutdown.clusterDowningReason())));
    assertEquals(
        1, Main.exitStatus(Optional.of(CoordinatedShutdown.clusterJoinUnsuccessfulReason())));
  }
}
