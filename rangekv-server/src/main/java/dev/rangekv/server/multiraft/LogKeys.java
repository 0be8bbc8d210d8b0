package dev.rangekv.server.multiraft;

import java.nio.ByteBuffer;

/**
 * The layout of the node's Raft log database: per range, {@code L|range|index} a log entry, {@code
 * T|range} term and vote, {@code E|range} this node's endpoint state, {@code I|range} the initial
 * members, {@code S|range} the last snapshot chunk (an applied-index marker: the state is the range's
 * store). {@code A|node} is a node's Raft address, for the members of status pages. {@code R|range} is
 * the latest incarnation of this node's replica of the range that was destroyed (its endpoint's wire form):
 * it outlives the group's other keys, so a replica added again starts only as a later incarnation.
 */
final class LogKeys {
  static final byte LOG = 'L';
  static final byte TERM = 'T';
  static final byte ENDPOINT = 'E';
  static final byte INITIAL = 'I';
  static final byte SNAPSHOT = 'S';
  static final byte ADDRESS = 'A';
  static final byte RETIRED = 'R';
  static final byte[] GROUP_KINDS = {LOG, TERM, ENDPOINT, INITIAL, SNAPSHOT};

  private LogKeys() {}

  static byte[] log(long rangeId, long index) {
    return ByteBuffer.allocate(17).put(LOG).putLong(rangeId).putLong(index).array();
  }

  static byte[] of(byte kind, long rangeId) {
    return ByteBuffer.allocate(9).put(kind).putLong(rangeId).array();
  }

  /** The first key after every key of {@code kind} for {@code rangeId}. */
  static byte[] after(byte kind, long rangeId) {
    return ByteBuffer.allocate(10).put(kind).putLong(rangeId).put((byte) 0xFF).array();
  }

  static byte[] address(String nodeId) {
    byte[] id = nodeId.getBytes(java.nio.charset.StandardCharsets.UTF_8);
    return ByteBuffer.allocate(1 + id.length).put(ADDRESS).put(id).array();
  }

  static long indexOf(byte[] logKey) {
    return ByteBuffer.wrap(logKey, 9, 8).getLong();
  }
}
