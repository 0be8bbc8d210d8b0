package dev.rangekv.server.replica;

import com.google.protobuf.ByteString;
import com.google.protobuf.InvalidProtocolBufferException;
import dev.rangekv.proto.DuplicateTooOld;
import dev.rangekv.proto.RangeKvError;
import dev.rangekv.proto.WriteId;
import dev.rangekv.proto.replica.CommandResult;
import java.nio.ByteBuffer;
import java.util.HexFormat;
import dev.rangekv.storage.NodeStore;
import java.util.Optional;

/**
 * At-most-once application of client writes across leader changes, restarts, splits and merges: per
 * range, one small record per applied (client id, request id) holding its result, written in the same
 * batch as the write, and per client a floor below which ids are forgotten. The range's table is held
 * in memory as stored ({@link RecentWriteIds}), so a new write costs one put and no store read, and a
 * trim deletes the records it knows without scanning; a client not held is loaded with one scan.
 * Clients carry a low-water mark on every write (every id below it has finished and will never be
 * retried); the floor follows it in steps of {@link
 * #TRIM_STEP}, deleting the records passed, and never lags the newest id by more than {@link
 * #MARKED_WINDOW}. A client that sends no mark keeps the last {@link #DEFAULT_WINDOW} ids. Functions of
 * the entry's batch view only, so every replica decides alike.
 *
 * <p>Field names: {@code dedupe/<client hex>/<request id, 16 hex digits>} for records (sorted by id),
 * {@code dedupe/<client hex>.floor} for the floor; both under {@link #PREFIX}, which splits copy to the
 * child and merges fold into the left range.
 */
public final class DedupeTable {
  /** Local-state field prefix of every dedupe field. */
  public static final String PREFIX = "dedupe/";

  /** Request ids remembered per client and range for a client that sends no low-water mark. */
  public static final long DEFAULT_WINDOW = 1024;

  /**
   * Request ids remembered per client and range below the newest, for a client that sends its low-water
   * mark: the mark decides, and this only bounds what an id leaked in flight could keep. It was {@link
   * #DEFAULT_WINDOW}: with 256 writes in flight a write retried after a leader transfer came back after
   * more than 1,024 newer ones, found itself forgotten (DUPLICATE_TOO_OLD) and failed as ambiguous (the
   * demo's AMBIGUOUS_RESULT failures, BENCHMARKS.md, "Leader transfers in the demo"). 65,536 ids outlast
   * a 10 s deadline at 6,000 writes per second from one client.
   */
  public static final long MARKED_WINDOW = 1 << 16;

  /** The floor moves in steps of at least this many ids, so a trim is rare and deletes many records. */
  public static final long TRIM_STEP = 64;

  private static final String FLOOR_SUFFIX = ".floor";
  private static final HexFormat HEX = HexFormat.of();

  private DedupeTable() {}

  static String clientPart(ByteString clientId) {
    return PREFIX + HEX.formatHex(clientId.toByteArray());
  }

  private static String recordField(RecentWriteIds.Client c, long requestId) {
    return c.prefix + "/" + idHex(requestId);
  }

  private static String floorField(String clientPart) {
    return clientPart + FLOOR_SUFFIX;
  }

  /**
   * The client's state on the entry's range: held in memory, or loaded through the entry's view (its store
   * and its own changes so far). Every field of the client is named {@code <clientPart>.floor} or
   * {@code <clientPart>/<16 hex digits>}; another client's part extends this one by a hex digit, which
   * sorts after both '.' and '/'.
   */
  private static RecentWriteIds.Client client(EntryBatch view, ByteString clientId) {
    return view.writeIds().client(clientId, id -> load(view, id));
  }

  private static RecentWriteIds.Client load(EntryBatch view, ByteString clientId) {
    String part = clientPart(clientId);
    long floor = view.localGet(floorField(part)).map(DedupeTable::decodeFloor).orElse(0L);
    java.util.List<String> names = view.localFields(part + "/", part + "0");
    long[] ids = new long[names.size()];
    int n = 0;
    for (String name : names) {
      ids[n++] = Long.parseUnsignedLong(name, part.length() + 1, name.length(), 16);
    }
    return new RecentWriteIds.Client(part, floor, new SortedIds(java.util.Arrays.copyOf(ids, n)));
  }

  /** True for a client's floor field (merged by maximum); false for a record (merged by union). */
  public static boolean isFloorField(String field) {
    return field.startsWith(PREFIX) && field.endsWith(FLOOR_SUFFIX);
  }

  /** The larger of two stored floors. */
  public static byte[] maxFloor(byte[] a, byte[] b) {
    return decodeFloor(a) >= decodeFloor(b) ? a : b;
  }

  /** True when {@code id} carries a client id: only such writes are deduplicated. */
  static boolean tracked(WriteId id) {
    return !id.getClientId().isEmpty();
  }

  /**
   * The reply for a write already applied: its recorded result, or {@code DUPLICATE_TOO_OLD} when its id
   * is below the client's floor (forgotten: its outcome is unknown). Empty for a new write.
   */
  static Optional<CommandResult> seen(EntryBatch view, WriteId id) {
    RecentWriteIds.Client c = client(view, id.getClientId());
    if (c.ids.contains(id.getRequestId())) {
      byte[] record = view.localGet(recordField(c, id.getRequestId())).orElseThrow(() -> new IllegalStateException(
          "the range's held dedupe ids name a record it does not store: rangeId=" + view.rangeId()
              + " requestId=" + id.getRequestId()));
      return Optional.of(parse(record));
    }
    if (id.getRequestId() < c.floor) {
      RangeKvError error = RangeKvError.newBuilder()
          .setDuplicateTooOld(DuplicateTooOld.newBuilder().setRequestId(id.getRequestId()))
          .setMessage("request " + id.getRequestId() + " is older than the dedupe window; its outcome is unknown")
          .build();
      return Optional.of(CommandResult.newBuilder().setError(error).build());
    }
    return Optional.empty();
  }

  /**
   * The result recorded for {@code id} in {@code rangeId}'s applied state, outside any entry: what a
   * leader that stepped down reads to answer a write it had proposed. Empty when none is recorded (not
   * applied, or forgotten below the floor).
   */
  static Optional<CommandResult> recorded(NodeStore store, long rangeId, WriteId id) {
    return store.localGet(rangeId, clientPart(id.getClientId()) + "/" + idHex(id.getRequestId()))
        .map(DedupeTable::parse);
  }

  /**
   * Records {@code result} for {@code id} and, when the client's low-water mark moved far enough, trims.
   * The whole result, with the current value a refused check read: a retry is answered with what the
   * first attempt saw, and a refusal replayed without its value would report a value never written
   * (DedupeTablePropertyTest#aRetriedRefusedCheck_getsTheValueItSawFirst).
   */
  static void record(EntryBatch view, WriteId id, CommandResult result) {
    RecentWriteIds.Client c = client(view, id.getClientId());
    view.localPut(recordField(c, id.getRequestId()), result.toByteArray());
    c.ids.add(id.getRequestId());
    long window = id.getLowWater() > 0 ? MARKED_WINDOW : DEFAULT_WINDOW;
    long lowWater = Math.min(id.getRequestId(), Math.max(id.getLowWater(), id.getRequestId() - window));
    if (lowWater - c.floor >= TRIM_STEP) {
      // the records named in [floor, lowWater), hex order (as unsigned ids); one a merge brought in below
      // the floor stays, as it always did
      for (long gone : c.ids.removeRange(c.floor, lowWater)) {
        view.localDelete(recordField(c, gone));
      }
      c.floor = lowWater;
      view.localPut(floorField(c.prefix), encodeFloor(lowWater));
    }
  }

  static long floor(EntryBatch view, ByteString clientId) {
    return client(view, clientId).floor;
  }

  private static String idHex(long requestId) {
    return HEX.toHexDigits(requestId); // 16 digits: names sort as the ids do
  }

  private static byte[] encodeFloor(long floor) {
    return ByteBuffer.allocate(8).putLong(floor).array();
  }

  private static long decodeFloor(byte[] bytes) {
    if (bytes.length != 8) {
      throw new IllegalStateException("corrupt dedupe floor: " + bytes.length + " bytes");
    }
    return ByteBuffer.wrap(bytes).getLong();
  }

  private static CommandResult parse(byte[] bytes) {
    try {
      return CommandResult.parseFrom(bytes);
    } catch (InvalidProtocolBufferException e) {
      throw new IllegalStateException("corrupt dedupe record: " + e.getMessage(), e);
    }
  }
}
