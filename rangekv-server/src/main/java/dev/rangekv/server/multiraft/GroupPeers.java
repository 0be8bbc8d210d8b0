package dev.rangekv.server.multiraft;

import java.util.HashMap;
import java.util.Map;
import java.util.Set;
import java.util.function.BooleanSupplier;

/**
 * The nodes this node shares a range group with, kept up to date as groups open, close and change
 * members, so the keep-alive sender reads a set instead of walking every group's members each period
 * (at 10,000 groups of 3 that walk was ~30,000 member reads every 500 ms). Each group's last known
 * members are held, and each node counted once per group that names it; a node leaves the set when no
 * group names it any more. Thread-safe: groups change on stripe threads, open and close elsewhere.
 */
final class GroupPeers {
  private final Map<Long, Set<String>> membersOf = new HashMap<>();
  private final Map<String, Integer> groupsOf = new HashMap<>();
  /** The set as last asked for; replaced (never edited) when it changes. */
  private Set<String> nodes = Set.of();

  /**
   * Group {@code rangeId} has {@code members} now, if {@code stillOpen} holds (checked under this
   * object's lock, so a group {@link #closed} meanwhile is not counted again).
   */
  synchronized void members(long rangeId, Set<String> members, BooleanSupplier stillOpen) {
    Set<String> before = membersOf.get(rangeId);
    if (members.equals(before) || !stillOpen.getAsBoolean()) {
      return;
    }
    Set<String> after = Set.copyOf(members);
    membersOf.put(rangeId, after);
    for (String n : after) {
      if (before == null || !before.contains(n)) {
        groupsOf.merge(n, 1, Integer::sum);
      }
    }
    if (before != null) {
      for (String n : before) {
        if (!after.contains(n)) {
          uncount(n);
        }
      }
    }
    nodes = null;
  }

  /** Group {@code rangeId} closed here: its members no longer count. */
  synchronized void closed(long rangeId) {
    Set<String> before = membersOf.remove(rangeId);
    if (before != null) {
      before.forEach(this::uncount);
      nodes = null;
    }
  }

  /** Every node some open group names (this node too, when it runs any group). */
  synchronized Set<String> nodes() {
    if (nodes == null) {
      nodes = Set.copyOf(groupsOf.keySet());
    }
    return nodes;
  }

  private void uncount(String node) {
    groupsOf.computeIfPresent(node, (n, c) -> c == 1 ? null : c - 1);
  }
}
