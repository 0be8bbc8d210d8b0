package dev.rangekv.client.routing;

import dev.rangekv.core.rangemap.RangeDescriptor;
import java.util.List;
import java.util.Map;

/**
 * Why one attempt failed, as data for the retry loop. {@link #definitelyNotApplied()} is the node's
 * word (or the transport's, when the request never left the client) that a write did not happen; when
 * false a write's outcome is unknown.
 */
public sealed interface Failure {

  boolean definitelyNotApplied();

  /** Human-readable detail for error messages. */
  String detail();

  /** The range changed: {@code current} is what the answering node knows now (maybe empty or stale). */
  record RangeMoved(List<RangeDescriptor> current, Map<String, String> addresses, String detail) implements Failure {
    public RangeMoved {
      current = List.copyOf(current);
      addresses = Map.copyOf(addresses);
    }

    @Override
    public boolean definitelyNotApplied() {
      return true;
    }
  }

  /** The node does not lead the range; {@code leaderNodeId} is empty when it knows no leader. */
  record NotLeader(String leaderNodeId, String leaderAddress, boolean definitelyNotApplied, String detail)
      implements Failure {}

  /** The node holds no replica of the range: the cache points at the wrong node. */
  record RangeNotFound(String detail) implements Failure {
    @Override
    public boolean definitelyNotApplied() {
      return true;
    }
  }

  /** The node or the network could not serve the request now (timeout, no leader yet, unreachable). */
  record Unavailable(boolean definitelyNotApplied, String detail) implements Failure {}

  /** The request broke a limit; retrying cannot help. */
  record InvalidArgument(String limit, String detail) implements Failure {
    @Override
    public boolean definitelyNotApplied() {
      return true;
    }
  }

  /** A retried write older than the node's dedupe window: the node cannot tell whether it applied. */
  record DuplicateTooOld(String detail) implements Failure {
    @Override
    public boolean definitelyNotApplied() {
      return false;
    }
  }

  /** A failure the node reported as internal; not retried. */
  record Internal(boolean definitelyNotApplied, String detail) implements Failure {}
}
