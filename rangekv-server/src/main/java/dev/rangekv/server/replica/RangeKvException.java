package dev.rangekv.server.replica;

import dev.rangekv.proto.RangeKvError;

/**
 * Carries a typed {@link RangeKvError} through the consensus engine (e.g. the replica's refusal of a
 * proposal, which the engine hands back to the proposer) back to the gRPC edge.
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
