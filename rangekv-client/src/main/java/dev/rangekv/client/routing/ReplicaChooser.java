package dev.rangekv.client.routing;

import java.util.List;
import java.util.Optional;
import java.util.Set;

/**
 * Which node an attempt goes to: the known leader unless it failed during this call, otherwise the
 * replicas in placement order, skipping nodes that failed during this call. Pure.
 */
public final class ReplicaChooser {
  private ReplicaChooser() {}

  /**
   * The next node to try, or empty when every candidate failed during this call (the caller then
   * forgets the failures and starts over from the leader, after a backoff).
   *
   * @param replicas the range's replicas in placement order
   * @param leader the leader hint, empty when unknown
   * @param failed nodes that failed (unreachable, not leader without hint, range not found) this call
   */
  public static Optional<String> next(List<String> replicas, String leader, Set<String> failed) {
    if (!leader.isEmpty() && !failed.contains(leader)) {
      return Optional.of(leader);
    }
    for (String r : replicas) {
      if (!failed.contains(r)) {
        return Optional.of(r);
      }
    }
    return Optional.empty();
  }
}
