package dev.rota.http;

import dev.rota.cluster.readmodel.ReadModel;
import dev.rota.cluster.readmodel.ReadModelException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.function.Function;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Read-model queries for the admin routes: run on the blocking dispatcher, answered 503 {@code
 * unavailable} when the node has no read model or the query fails.
 */
final class ReadModelReads {
  private static final Logger log = LoggerFactory.getLogger(ReadModelReads.class);

  private final ReadModel readModel;
  private final Executor blocking;

  /**
   * @param readModel null when the node has none
   * @param blocking where the (blocking) queries run
   */
  ReadModelReads(ReadModel readModel, Executor blocking) {
    this.readModel = readModel;
    this.blocking = blocking;
  }

  /** {@code query} on the blocking dispatcher; 503 when there is no read model or it fails. */
  <T> CompletableFuture<T> read(Function<ReadModel, T> query) {
    if (readModel == null) {
      throw ApiException.unavailable("this node has no read model; try another node");
    }
    return CompletableFuture.supplyAsync(
        () -> {
          try {
            return query.apply(readModel);
          } catch (ReadModelException e) {
            log.warn("read model unavailable: {}", e.getMessage(), e.getCause());
            throw ApiException.unavailable("the read model is not available; try again later");
          }
        },
        blocking);
  }
}
