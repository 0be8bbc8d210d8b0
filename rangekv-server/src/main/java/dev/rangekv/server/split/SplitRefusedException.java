package dev.rangekv.server.split;

import dev.rangekv.proto.RangeKvError;

/**
 * A split refused before anything was proposed, with the typed error its caller answers (the gRPC
 * adapter turns it into the call's status): a range not held here, a bad split key, no child id.
 */
public final class SplitRefusedException extends RuntimeException {
  private static final long serialVersionUID = 1L;
  private final transient RangeKvError error;

  public SplitRefusedException(RangeKvError error) {
    super(error.getMessage(), null, false, false);
    this.error = error;
  }

  public RangeKvError error() {
    return error;
  }
}
