package dev.rangekv.server.replica;

import dev.rangekv.proto.replica.CommandResult;
import dev.rangekv.proto.replica.DormancyCommand;
import dev.rangekv.storage.NodeStore;
import dev.rangekv.storage.WriteBatchBuilder;
import java.nio.ByteBuffer;
import java.util.OptionalLong;

/**
 * A range's durable dormancy mark: the local field {@value #FIELD} holds the log index of the applied
 * dormancy entry ("dormant at index i"); a later wake entry deletes it. The mark decides what a node
 * opens at start (awake ranges only) and what the reconciler leaves closed.
 */
public final class DormancyRecord {
  /** Local-state field of a dormant range: the dormancy entry's log index (8 bytes). */
  public static final String FIELD = "dormant";

  private DormancyRecord() {}

  /** The index {@code rangeId} went dormant at, from the store; empty when it is awake. */
  public static OptionalLong dormantAt(NodeStore store, long rangeId) {
    return store.localGet(rangeId, FIELD).map(b -> OptionalLong.of(ByteBuffer.wrap(b).getLong()))
        .orElse(OptionalLong.empty());
  }

  /**
   * The mark of a range born dormant (a split's child, {@code SplitCommand.child_dormant}): dormant since
   * before its first entry, so any entry its group applies once woken counts as after the mark (the
   * leader then records the wake, see {@code dormancy.DormancyTicker}).
   */
  public static final long BORN_DORMANT = -1;

  /** Records {@code rangeId} as born dormant into {@code batch} (with the range's own record). */
  public static void bornDormant(long rangeId, WriteBatchBuilder batch) {
    batch.localPut(rangeId, FIELD, ByteBuffer.allocate(8).putLong(BORN_DORMANT).array());
  }

  /** Applies {@code cmd} at {@code index} into {@code batch}, synced: the mark must survive a crash. */
  static CommandResult apply(long rangeId, DormancyCommand cmd, long term, long index, WriteBatchBuilder batch) {
    if (cmd.getDormant()) {
      batch.localPut(rangeId, FIELD, ByteBuffer.allocate(8).putLong(index).array());
    } else {
      batch.localDelete(rangeId, FIELD);
    }
    batch.setApplied(rangeId, term, index).sync();
    return CommandResult.newBuilder().setAppliedIndex(index).build();
  }
}
