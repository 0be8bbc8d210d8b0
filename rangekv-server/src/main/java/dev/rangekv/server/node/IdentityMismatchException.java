package dev.rangekv.server.node;

/**
 * A node refused to start or join because an identity does not match: its data directory belongs to
 * another node id, or the cluster it was pointed at has another cluster id. Nothing was changed.
 */
public final class IdentityMismatchException extends RuntimeException {
  private static final long serialVersionUID = 1L;

  public IdentityMismatchException(String message) {
    super(message);
  }
}
