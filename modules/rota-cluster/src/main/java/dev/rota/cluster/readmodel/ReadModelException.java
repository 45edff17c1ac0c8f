package dev.rota.cluster.readmodel;

/** A read-model query failed in the database; the cause is the driver's exception. */
public final class ReadModelException extends RuntimeException {
  public ReadModelException(String message, Throwable cause) {
    super(message, cause);
  }
}
