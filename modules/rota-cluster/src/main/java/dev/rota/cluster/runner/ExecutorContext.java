package dev.rota.cluster.runner;

import com.typesafe.config.Config;
import org.apache.pekko.actor.typed.ActorSystem;

/**
 * What an executor is built from.
 *
 * @param config the executor's settings: {@code rota.runners.<executor>} overlaid by the pool's
 *     {@code executor-settings}
 * @param blocking the {@code rota.runners.blocking-dispatcher}, for work that blocks a thread
 */
public record ExecutorContext(
    ActorSystem<?> system, String pool, Config config, java.util.concurrent.Executor blocking) {}
