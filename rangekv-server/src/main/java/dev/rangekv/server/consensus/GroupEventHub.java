package dev.rangekv.server.consensus;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * The listeners of one engine and the contract of {@link GroupEvents} in one place, for every engine to
 * report through: it passes on a became only when the range was not led here and a loss only when it
 * was (an engine may report a change twice, or a loss of a range it never led), and a listener added
 * late first hears a became for each range led now. Thread-safe: events and additions are serialized,
 * so no listener misses or doubles a change while it is being added.
 */
public final class GroupEventHub implements GroupEvents {
  private final List<GroupEvents> listeners = new ArrayList<>();
  private final Set<Long> leading = new HashSet<>();

  /** Adds {@code listener}, telling it first of each range led here now. */
  public synchronized void add(GroupEvents listener) {
    listeners.add(listener);
    for (long rangeId : leading) {
      listener.becameLeader(rangeId);
    }
  }

  /** The ranges this node's replicas lead, as the engine reported. */
  public synchronized Set<Long> leading() {
    return Set.copyOf(leading);
  }

  @Override
  public synchronized void becameLeader(long rangeId) {
    if (leading.add(rangeId)) {
      listeners.forEach(l -> l.becameLeader(rangeId));
    }
  }

  @Override
  public synchronized void lostLeadership(long rangeId, String leaderHint) {
    if (leading.remove(rangeId)) {
      listeners.forEach(l -> l.lostLeadership(rangeId, leaderHint));
    }
  }

  @Override
  public synchronized void configurationApplied(long rangeId, List<Member> members, List<Member> previousMembers) {
    List<Member> now = List.copyOf(members);
    List<Member> before = List.copyOf(previousMembers);
    listeners.forEach(l -> l.configurationApplied(rangeId, now, before));
  }
}
