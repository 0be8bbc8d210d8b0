package dev.rangekv.server.observe;

import com.google.protobuf.ByteString;
import java.util.ArrayDeque;
import java.util.List;
import java.util.Objects;

/**
 * The key heat map's data, as TiDB's Key Visualizer keeps it: one column per controller tick, each the
 * range map of that moment cut at range boundaries with every range's read and write QPS and bytes written. Bounded by
 * age ({@code window}) and by count. Kept on the meta leader; cleared when leadership moves here anew.
 * Thread-safe.
 */
public final class KeyHeatRing {
  /** One range in one column: its start key and its load at that tick (bytes written per second too). */
  public record Band(long rangeId, ByteString start, double readQps, double writeQps, double writeBytesPerSecond) {
    public Band {
      Objects.requireNonNull(start, "start");
    }
  }

  /** The whole keyspace at one tick, bands in key order (they tile it). */
  public record Column(long atMillis, List<Band> bands) {
    public Column {
      bands = List.copyOf(bands);
    }
  }

  private final int capacity;
  private final long windowMillis;
  private final ArrayDeque<Column> columns = new ArrayDeque<>();

  public KeyHeatRing(int capacity, long windowMillis) {
    if (capacity <= 0 || windowMillis <= 0) {
      throw new IllegalArgumentException("bad ring capacity=" + capacity + " windowMillis=" + windowMillis);
    }
    this.capacity = capacity;
    this.windowMillis = windowMillis;
  }

  /** Appends a column, dropping those older than the window or beyond the capacity. */
  public synchronized void add(Column c) {
    columns.addLast(c);
    while (columns.size() > capacity || c.atMillis() - columns.peekFirst().atMillis() > windowMillis) {
      columns.removeFirst();
    }
  }

  /** The kept columns, oldest first. */
  public synchronized List<Column> columns() {
    return List.copyOf(columns);
  }

  public synchronized void clear() {
    columns.clear();
  }
}
