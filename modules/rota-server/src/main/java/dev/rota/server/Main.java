package dev.rota.server;

import com.typesafe.config.ConfigFactory;
import java.util.Optional;
import org.apache.pekko.actor.CoordinatedShutdown;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Starts a Rota node in this process. Configuration: {@code application.conf}, or an overlay chosen
 * with {@code -Dconfig.file=config/postgres.conf}, plus {@code ROTA_*} environment variables
 * (docs/configuration.md). {@code java -jar rota-server.jar catch-up-read-model} runs the read
 * model's one-time catch-up instead ({@link ReadModelCatchUpCommand}), {@code migrate} only the
 * schema's migrations ({@link MigrateCommand}).
 *
 * <p>Exits with status 1 and a one-line reason if the node cannot start. SIGTERM stops the node
 * through CoordinatedShutdown; when the node stops for another reason the JVM exits too, with a
 * non-zero status (3 when the cluster downed it, see {@link #exitStatus}), so a supervisor with
 * restart-on-failure starts it again.
 */
public final class Main {
  private Main() {}

  public static void main(String[] args) {
    // Before anything prints, logs or loads Scala's Console (which keeps the System.out it finds).
    JsonConsole.install();
    Logger log = LoggerFactory.getLogger(Main.class);
    CommonPool.atLeastTwoThreads();
    if (args.length == 1 && args[0].equals(ReadModelCatchUpCommand.NAME)) {
      System.exit(ReadModelCatchUpCommand.run());
      return;
    }
    if (args.length == 1 && args[0].equals(MigrateCommand.NAME)) {
      System.exit(MigrateCommand.run());
      return;
    }
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
    CoordinatedShutdown shutdown = CoordinatedShutdown.get(node.system());
    // Said as the last step of the shutdown itself: on SIGTERM the JVM ends when its shutdown hooks
    // are done, which can be before this thread would have said it after the termination.
    shutdown.addTask(
        CoordinatedShutdown.PhaseActorSystemTerminate(),
        "rota-log-stop",
        () -> {
          logStopped(log, shutdown.getShutdownReason());
          haltIfStuck(exitStatus(shutdown.getShutdownReason()));
          return java.util.concurrent.CompletableFuture.completedFuture(
              org.apache.pekko.Done.getInstance());
        });
    node.system().getWhenTerminated().toCompletableFuture().join();
    // On SIGTERM this waits for the JVM's shutdown hooks; otherwise it ends the process.
    System.exit(exitStatus(shutdown.getShutdownReason()));
  }

  /**
   * A node that stops for a failure (downed: status 3) must end, so that its supervisor can start
   * it again; but the actor system's termination can hang: after a one-way partition Artery waits
   * to flush outbound streams the partition stalls, and a downed node's JVM was seen to stay 24 s
   * after it said it was exiting. The node has served and written nothing since it was downed, so
   * if it has not ended {@value #HALT_AFTER_SECONDS} s after saying so, it halts with its status. A
   * requested stop (status 0, SIGTERM) is left to the JVM's shutdown hooks.
   */
  private static void haltIfStuck(int status) {
    if (status == 0) {
      return;
    }
    Thread watchdog =
        new Thread(
            () -> {
              try {
                Thread.sleep(HALT_AFTER_SECONDS * 1000L);
              } catch (InterruptedException e) {
                return;
              }
              Runtime.getRuntime().halt(status);
            },
            "rota-exit-watchdog");
    watchdog.setDaemon(true);
    watchdog.start();
  }

  private static final int HALT_AFTER_SECONDS = 5;

  private static void logStopped(Logger log, Optional<CoordinatedShutdown.Reason> reason) {
    int status = exitStatus(reason);
    String why = reason.map(Object::toString).orElse("terminated");
    if (status == 0) {
      log.info("Rota node stopped ({})", why);
    } else {
      log.error("Rota node stopped ({}); exiting with status {}", why, status);
    }
  }

  /**
   * 0 when the node was asked to stop (SIGTERM, a requested leave, {@link RotaNode#stop}); {@value
   * #EXIT_DOWNED} when the cluster downed it (the Split Brain Resolver, or a manual down), so that
   * a supervisor with restart-on-failure starts it again; 1 for any other reason (say, it could not
   * join its seed nodes).
   */
  static int exitStatus(Optional<CoordinatedShutdown.Reason> reason) {
    if (reason.isEmpty()) {
      return 0;
    }
    CoordinatedShutdown.Reason why = reason.get();
    if (why == CoordinatedShutdown.jvmExitReason()
        || why == CoordinatedShutdown.clusterLeavingReason()
        || why == CoordinatedShutdown.actorSystemTerminateReason()
        || why == CoordinatedShutdown.unknownReason()) {
      return 0;
    }
    if (why == CoordinatedShutdown.clusterDowningReason()) {
      return EXIT_DOWNED;
    }
    return 1;
  }

  /** The exit status of a node the cluster downed. */
  public static final int EXIT_DOWNED = 3;
}
