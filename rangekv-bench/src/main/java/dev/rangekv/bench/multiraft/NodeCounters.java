package dev.rangekv.bench.multiraft;

/**
 * A node's counters: WAL syncs RocksDB did, stripe cycles and synced batches, envelopes and Raft
 * messages sent (per-group: every message is its own send), messages that left before the sync
 * covering them, and stripe tasks that threw.
 */
record NodeCounters(long walSyncs, long cycles, long batches, long envelopes, long messages, long unsynced,
    long failures) {
  NodeCounters plus(NodeCounters o) {
    return new NodeCounters(walSyncs + o.walSyncs, cycles + o.cycles, batches + o.batches,
        envelopes + o.envelopes, messages + o.messages, unsynced + o.unsynced, failures + o.failures);
  }

  NodeCounters minus(NodeCounters o) {
    return new NodeCounters(walSyncs - o.walSyncs, cycles - o.cycles, batches - o.batches,
        envelopes - o.envelopes, messages - o.messages, unsynced - o.unsynced, failures - o.failures);
  }
}
