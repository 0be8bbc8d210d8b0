package dev.rangekv.storage;

import dev.rangekv.core.key.Key;
import dev.rangekv.core.key.RangeEnd;
import dev.rangekv.core.rangemap.RangeDescriptor;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;

/**
 * The child process of {@link CrashRecoveryIT}: writes batch after batch, each carrying data and the
 * range's applied index, until it is killed. Batch {@code i} puts {@code k(i)}, overwrites {@code last}
 * with {@code i}, deletes {@code k(i - 10)} and sets applied index {@code i}, so after recovery with
 * applied index {@code n} exactly {@code k(n-9) .. k(n)} exist and {@code last == n}. Prints each
 * {@value #REPORT_EVERY}th index after its write returned.
 */
public final class CrashWriter {
  static final long RANGE_ID = 1;
  static final int WINDOW = 10;
  static final int REPORT_EVERY = 25;
  /** Stops on its own after this many batches, should the parent die without killing it. */
  static final int MAX_BATCHES = 2_000_000;

  private CrashWriter() {}

  static Key dataKey(long i) {
    return Key.utf8(String.format("k%012d", i));
  }

  static byte[] value(long i) {
    byte[] v = new byte[300];
    Arrays.fill(v, (byte) ('a' + i % 26));
    byte[] tag = Long.toString(i).getBytes(StandardCharsets.UTF_8);
    System.arraycopy(tag, 0, v, 0, tag.length);
    return v;
  }

  public static void main(String[] args) {
    Path dir = Path.of(args[0]);
    boolean sync = Boolean.parseBoolean(args[1]);
    StoreOptions options = StoreOptions.defaults().withSyncWrites(sync).withWriteBufferBytes(256 << 10);
    try (NodeStore store = NodeStore.open(dir, options)) {
      long applied = store.rangeState(RANGE_ID).map(RangeLocalState::appliedIndex).orElseGet(() -> {
        RangeDescriptor d = new RangeDescriptor(RANGE_ID, Key.EMPTY, RangeEnd.INFINITY, List.of("n1"), 1);
        try (WriteBatchBuilder b = store.newBatch()) {
          store.write(b.putRangeState(new RangeLocalState(d, 1, 0)).sync());
        }
        return 0L;
      });
      System.out.println("start " + applied);
      System.out.flush();
      for (long i = applied + 1; i <= applied + MAX_BATCHES; i++) {
        try (WriteBatchBuilder b = store.newBatch()) {
          b.put(dataKey(i), value(i)).put(Key.utf8("last"), Long.toString(i).getBytes(StandardCharsets.UTF_8));
          if (i > WINDOW) {
            b.delete(dataKey(i - WINDOW));
          }
          store.write(b.setApplied(RANGE_ID, 1, i));
        }
        if (i % REPORT_EVERY == 0) {
          System.out.println("applied " + i);
          System.out.flush();
        }
      }
    }
  }
}
