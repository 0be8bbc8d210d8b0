package dev.rangekv.storage;

import dev.rangekv.core.key.Key;
import dev.rangekv.core.key.RangeEnd;
import dev.rangekv.core.rangemap.RangeDescriptor;
import java.nio.BufferUnderflowException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/**
 * Binary records and keys of the local column family.
 *
 * <p>Keys: {@code 0x01 id} the descriptor, {@code 0x02 id} the applied term and index, {@code 0x03 id field}
 * the range's free-form fields; {@code id} is 8 bytes big-endian. Descriptor and applied index live under
 * separate keys so that the per-entry {@code setApplied} is a blind 16-byte put, and descriptors of all
 * ranges sit together so {@link NodeStore#allRangeStates} never walks the fields.
 *
 * <p>Descriptor record, version 1: {@code 1, rangeId:8, generation:8, startLen:4, start, endFinite:1,
 * [endLen:4, end], replicaCount:4, (len:4, utf8)*}.
 */
final class LocalStateCodec {
  static final byte DESCRIPTOR_TAG = 0x01;
  static final byte APPLIED_TAG = 0x02;
  static final byte FIELD_TAG = 0x03;
  private static final byte VERSION = 1;

  private LocalStateCodec() {}

  static byte[] descriptorKey(long rangeId) {
    return idKey(DESCRIPTOR_TAG, rangeId, 0).array();
  }

  static byte[] appliedKey(long rangeId) {
    return idKey(APPLIED_TAG, rangeId, 0).array();
  }

  static byte[] fieldKey(long rangeId, String field) {
    byte[] f = field.getBytes(StandardCharsets.UTF_8);
    return idKey(FIELD_TAG, rangeId, f.length).put(f).array();
  }

  /** The range id of a descriptor, applied or field key. */
  static long rangeIdOf(byte[] localKey) {
    return ByteBuffer.wrap(localKey, 1, 8).getLong();
  }

  static String fieldOf(byte[] fieldKey) {
    return new String(fieldKey, 9, fieldKey.length - 9, StandardCharsets.UTF_8);
  }

  private static ByteBuffer idKey(byte tag, long rangeId, int extra) {
    return ByteBuffer.allocate(9 + extra).put(tag).putLong(rangeId);
  }

  static byte[] encodeApplied(long term, long index) {
    return ByteBuffer.allocate(16).putLong(term).putLong(index).array();
  }

  static long[] decodeApplied(byte[] record) {
    if (record.length != 16) {
      throw new StoreException("corrupt applied record: length " + record.length + " != 16");
    }
    ByteBuffer b = ByteBuffer.wrap(record);
    return new long[] {b.getLong(), b.getLong()};
  }

  static byte[] encodeDescriptor(RangeDescriptor d) {
    byte[] start = d.start().toByteArray();
    byte[] end = d.end().isInfinite() ? null : d.end().key().toByteArray();
    List<byte[]> replicas = new ArrayList<>(d.replicas().size());
    int size = 1 + 8 + 8 + 4 + start.length + 1 + (end == null ? 0 : 4 + end.length) + 4;
    for (String r : d.replicas()) {
      byte[] rb = r.getBytes(StandardCharsets.UTF_8);
      replicas.add(rb);
      size += 4 + rb.length;
    }
    ByteBuffer b = ByteBuffer.allocate(size).put(VERSION).putLong(d.rangeId()).putLong(d.generation());
    b.putInt(start.length).put(start);
    if (end == null) {
      b.put((byte) 0);
    } else {
      b.put((byte) 1).putInt(end.length).put(end);
    }
    b.putInt(replicas.size());
    for (byte[] rb : replicas) {
      b.putInt(rb.length).put(rb);
    }
    return b.array();
  }

  static RangeDescriptor decodeDescriptor(byte[] record) {
    try {
      ByteBuffer b = ByteBuffer.wrap(record);
      byte version = b.get();
      if (version != VERSION) {
        throw new StoreException("unknown range descriptor record version " + version);
      }
      long rangeId = b.getLong();
      long generation = b.getLong();
      Key start = Key.of(bytes(b));
      RangeEnd end = b.get() == 0 ? RangeEnd.INFINITY : RangeEnd.at(Key.of(bytes(b)));
      int n = b.getInt();
      if (n < 0 || n > b.remaining()) {
        throw new StoreException("corrupt range descriptor record: replica count " + n);
      }
      List<String> replicas = new ArrayList<>(n);
      for (int i = 0; i < n; i++) {
        replicas.add(new String(bytes(b), StandardCharsets.UTF_8));
      }
      if (b.hasRemaining()) {
        throw new StoreException("corrupt range descriptor record: " + b.remaining() + " trailing bytes");
      }
      return new RangeDescriptor(rangeId, start, end, replicas, generation);
    } catch (BufferUnderflowException | IllegalArgumentException e) {
      throw new StoreException("corrupt range descriptor record", e);
    }
  }

  private static byte[] bytes(ByteBuffer b) {
    int len = b.getInt();
    if (len < 0 || len > b.remaining()) {
      throw new StoreException("corrupt range descriptor record: length " + len);
    }
    byte[] out = new byte[len];
    b.get(out);
    return out;
  }
}
