package dev.rangekv.storage;

/**
 * A storage operation failed: the message says which operation and on what; the cause is the
 * underlying RocksDB or I/O error. Unchecked: callers mostly cannot recover, a replica that fails to
 * apply must stop.
 */
public class StoreException extends RuntimeException {
  public StoreException(String message) {
    super(message);
  }

  public StoreException(String message, Throwable cause) {
    super(message + (cause.getMessage() == null ? "" : ": " + cause.getMessage()), cause);
  }
}
