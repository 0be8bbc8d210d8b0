package dev.rangekv.server.observe;

import dev.rangekv.server.consensus.GroupEvents;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * How many ranges this node's replicas lead, kept from the engine's leadership events rather than asked
 * of every range at each scrape (the {@code rangekv.leaders} gauge). The events say every change, a
 * closed group's included, so no poll backs it. Thread-safe.
 */
public final class LeaderCount implements GroupEvents {
  private final Set<Long> led = ConcurrentHashMap.newKeySet();

  @Override
  public void becameLeader(long rangeId) {
    led.add(rangeId);
  }

  @Override
  public void lostLeadership(long rangeId, String leaderHint) {
    led.remove(rangeId);
  }

  /** The ranges led here now. */
  public int count() {
    return led.size();
  }
}
