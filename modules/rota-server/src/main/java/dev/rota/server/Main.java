package dev.rota.server;

import com.typesafe.config.ConfigFactory;
import org.apache.pekko.actor.CoordinatedShutdown;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Starts a Rota node in this process. Configuration: {@code application.conf}, or an overlay chosen
 * with {@code -Dconfig.file=config/postgres.conf}, plus {@code ROTA_*} environment variables
 * (docs/configuration.md).
 *
 * <p>Exits with status 1 and a one-line reason if the node cannot start. SIGTERM stops the node
 * through CoordinatedShutdown; when the node stops for another reason (say, downed by the Split
 * Brain Resolver) the JVM exits too, so a supervisor can restart it.
 */
public final class Main {
  private Main() {}

  public static void main(String[] args) {
    // Before anything prints, logs or loads Scala's Console (which keeps the System.out it finds).
    JsonConsole.install();
    Logger log = LoggerFactory.getLogger(Main.class);
    CommonPool.atLeastTwoThreads();
    RotaNode node;
    try {
      node = RotaNode.start(ConfigFactory.empty());
    } catch (StartupException e) {
      log.error("Rota cannot start: {}", e.getMessage());
      System.exit(1);
      return;
    } catch (RuntimeException | Error e) {
      log.error("Rota cannot start: {}", e.toString(), e);
      System.exit(1);
      return;
    }
    node.system().getWhenTerminated().toCompletableFuture().join();
    log.info(
        "Rota node stopped ({})",
        CoordinatedShutdown.get(node.system())
            .getShutdownReason()
            .map(Object::toString)
            .orElse("terminated"));
    // On SIGTERM this waits for the JVM's shutdown hooks; otherwise it ends the process.
    System.exit(0);
  }
}
