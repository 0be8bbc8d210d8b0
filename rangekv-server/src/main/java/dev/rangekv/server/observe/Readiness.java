package dev.rangekv.server.observe;

import java.util.Objects;

/**
 * Whether a node can serve: its store is open, the meta range answers it, and it is not stopping. What
 * {@code /health?ready=1} and the gRPC health service report.
 */
@FunctionalInterface
public interface Readiness {
  /** The current verdict (cheap: no remote call on this path). */
  Verdict check();

  /** Ready, or not with a reason a person can act on. */
  record Verdict(boolean ready, String reason) {
    public static final Verdict READY = new Verdict(true, "");

    public Verdict {
      Objects.requireNonNull(reason, "reason");
    }

    public static Verdict notReady(String reason) {
      return new Verdict(false, reason);
    }
  }
}
