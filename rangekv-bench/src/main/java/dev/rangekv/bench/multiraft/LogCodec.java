package dev.rangekv.bench.multiraft;

import io.microraft.model.log.LogEntry;
import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.Optional;

/**
 * The spike's RocksDB layout, one key space per node: {@code L|group|index} a log entry, {@code
 * T|group} the term and vote, {@code M|group|kind} the endpoint and initial members, {@code S|group}
 * the snapshot marker (the applied index: the state is the node's data keys), {@code D|key} applied
 * data. Only what the spike writes can be decoded: a log entry holds a {@link PutOp} or the new-term
 * entry; membership changes are not part of the spike and fail fast.
 */
final class LogCodec {
  static final byte LOG = 'L';
  static final byte TERM = 'T';
  static final byte META = 'M';
  static final byte SNAPSHOT = 'S';
  static final byte DATA = 'D';
  private static final byte PUT = 0;
  private static final byte NEW_TERM = 1;

  private LogCodec() {}

  static byte[] logKey(int group, long index) {
    return ByteBuffer.allocate(13).put(LOG).putInt(group).putLong(index).array();
  }

  static byte[] groupKey(byte kind, int group) {
    return ByteBuffer.allocate(5).put(kind).putInt(group).array();
  }

  static byte[] metaKey(int group, byte kind) {
    return ByteBuffer.allocate(6).put(META).putInt(group).put(kind).array();
  }

  static byte[] dataKey(byte[] key) {
    byte[] out = new byte[key.length + 1];
    out[0] = DATA;
    System.arraycopy(key, 0, out, 1, key.length);
    return out;
  }

  static byte[] encode(LogEntry entry) {
    Object op = entry.getOperation();
    if (op == PutOp.NEW_TERM) {
      return ByteBuffer.allocate(9).putLong(entry.getTerm()).put(NEW_TERM).array();
    }
    if (!(op instanceof PutOp put)) {
      throw new IllegalStateException("spike log holds only puts and new-term entries, got " + op);
    }
    return ByteBuffer.allocate(17 + put.key().length + put.value().length)
        .putLong(entry.getTerm()).put(PUT)
        .putInt(put.key().length).put(put.key())
        .putInt(put.value().length).put(put.value())
        .array();
  }

  /** The key a stored log entry puts, or empty for the new-term entry. */
  static Optional<byte[]> decodePutKey(byte[] stored) {
    ByteBuffer in = ByteBuffer.wrap(stored);
    in.getLong();
    if (in.get() != PUT) {
      return Optional.empty();
    }
    byte[] key = new byte[in.getInt()];
    in.get(key);
    return Optional.of(key);
  }

  static byte[] userKey(byte[] dataKey) {
    return Arrays.copyOfRange(dataKey, 1, dataKey.length);
  }
}
