package dev.rota.faults.harness;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * A node JVM whose wall clock runs off the machine's by a fixed offset, through libfaketime
 * (Debian's {@code faketime libfaketime}). Only the wall clock moves: {@code
 * FAKETIME_DONT_FAKE_MONOTONIC=1} leaves {@code System.nanoTime} alone, and {@code
 * FAKETIME_FORCE_MONOTONIC_FIX=0} is needed as well, without which every timed park in the JVM
 * returns at once and the node spins.
 */
final class Faketime {
  static final Path LIBRARY = Path.of("/usr/lib/x86_64-linux-gnu/faketime/libfaketime.so.1");

  private Faketime() {}

  /** The environment that runs a process {@code offset} ahead (negative: behind). */
  static Map<String, String> environment(Duration offset) {
    long seconds = offset.toSeconds();
    return Map.of(
        "LD_PRELOAD",
        LIBRARY.toString(),
        "FAKETIME",
        (seconds >= 0 ? "+" : "") + seconds + "s",
        "FAKETIME_DONT_FAKE_MONOTONIC",
        "1",
        "FAKETIME_FORCE_MONOTONIC_FIX",
        "0");
  }

  /**
   * Makes sure libfaketime is there: installs the Debian packages when running as root, else fails
   * saying what to install.
   */
  static void requireInstalled() {
    if (Files.isRegularFile(LIBRARY)) {
      return;
    }
    String why;
    try {
      Process apt =
          new ProcessBuilder("apt-get", "install", "-y", "faketime", "libfaketime")
              .redirectErrorStream(true)
              .redirectOutput(ProcessBuilder.Redirect.DISCARD)
              .start();
      why =
          apt.waitFor(10, TimeUnit.MINUTES)
              ? "apt-get install ended with " + apt.exitValue()
              : "apt-get install did not finish";
    } catch (IOException e) {
      why = "apt-get could not run: " + e.getMessage();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      why = "interrupted";
    }
    if (!Files.isRegularFile(LIBRARY)) {
      throw new IllegalStateException(
          "the clock-skew fault needs libfaketime ("
              + LIBRARY
              + "): install the Debian packages faketime and libfaketime as root"
              + " (apt-get install -y faketime libfaketime); "
              + why);
    }
  }
}
