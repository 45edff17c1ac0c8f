package dev.rota.cluster.runner;

import dev.rota.cluster.runner.executor.HttpExecutor;
import dev.rota.cluster.runner.executor.NoopExecutor;
import dev.rota.cluster.runner.executor.ProcessExecutor;
import java.lang.reflect.InvocationTargetException;
import org.apache.pekko.actor.typed.ActorSystem;
import org.apache.pekko.actor.typed.DispatcherSelector;

/** Makes the one executor that all runners of a pool share. */
@FunctionalInterface
public interface ExecutorFactory {
  Executor create(RunnerSettings.PoolSettings pool);

  /**
   * The executors by name: {@code noop}, {@code process}, {@code http}; any other name is the class
   * name of an {@link Executor} with a public constructor taking an {@link ExecutorContext} (or
   * none). Every executor's outcomes pass through the node's {@link Redactor}. A misconfigured
   * executor throws here, so a node with a broken pool fails at start.
   */
  static ExecutorFactory standard(ActorSystem<?> system, RunnerSettings settings) {
    return pool -> {
      var blocking =
          system.dispatchers().lookup(DispatcherSelector.fromConfig(settings.blockingDispatcher()));
      var context = new ExecutorContext(system, pool.name(), pool.executorSettings(), blocking);
      Executor executor =
          switch (pool.executor()) {
            case "noop" -> new NoopExecutor(context);
            case "process" -> new ProcessExecutor(context);
            case "http" -> new HttpExecutor(context);
            default -> custom(pool.executor(), context);
          };
      // The node's configured secrets never reach an agent's history or a log through an outcome.
      return Redactor.from(system.settings().config()).wrap(executor);
    };
  }

  private static Executor custom(String className, ExecutorContext context) {
    try {
      Class<? extends Executor> type = Class.forName(className).asSubclass(Executor.class);
      try {
        return type.getConstructor(ExecutorContext.class).newInstance(context);
      } catch (NoSuchMethodException e) {
        return type.getConstructor().newInstance();
      }
    } catch (ClassNotFoundException | ClassCastException e) {
      throw new IllegalArgumentException(
          "pool "
              + context.pool()
              + ": executor '"
              + className
              + "' is neither noop, process, http nor an Executor class",
          e);
    } catch (ReflectiveOperationException e) {
      Throwable cause = e instanceof InvocationTargetException ite ? ite.getCause() : e;
      throw new IllegalArgumentException(
          "pool " + context.pool() + ": cannot create executor " + className, cause);
    }
  }
}
