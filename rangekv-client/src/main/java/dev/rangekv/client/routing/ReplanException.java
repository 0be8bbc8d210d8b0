package dev.rangekv.client.routing;

/**
 * Internal signal from the {@link Router}: the op's keys now span several ranges, so its caller must
 * split it along the refreshed cache and send the parts. Thrown only when no attempt can have applied
 * (an ambiguous write ends as an ambiguous result instead). Never reaches users.
 */
public final class ReplanException extends RuntimeException {
  private final int attempts;

  public ReplanException(int attempts) {
    super("op spans several ranges now: attempts=" + attempts, null, false, false);
    this.attempts = attempts;
  }

  /** Attempts used so far, so the re-planned parts keep counting towards the bound. */
  public int attempts() {
    return attempts;
  }
}
