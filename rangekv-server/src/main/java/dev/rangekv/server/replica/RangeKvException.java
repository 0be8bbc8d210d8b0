package dev.rangekv.server.replica;

import dev.rangekv.proto.RangeKvError;

/**
 * Carries a typed {@link RangeKvError} through Ratis (e.g. a refusal in {@code startTransaction},
 * which Ratis wraps into a {@code StateMachineException}) back to the gRPC edge.
 */
public final class RangeKvException extends RuntimeException {
  private final transient RangeKvError error;

  public RangeKvException(RangeKvError error) {
    super(error.getMessage(), null, false, false);
    this.error = error;
  }

  public RangeKvError error() {
    return error;
  }
}
