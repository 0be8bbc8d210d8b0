package dev.rangekv.bench.multiraft;

import io.microraft.statemachine.StateMachine;
import java.util.List;
import java.util.function.Consumer;
import org.rocksdb.RocksDBException;

/**
 * The spike's state machine: a put of the key and value into the node's RocksDB, through the
 * runtime's apply target (an unsynced write of its own, or the stripe's cycle batch). Its snapshot is
 * only the applied index, since the state already lives in the node's store; installing one would need
 * a range transfer, which the spike does not have, so it fails fast.
 */
final class KvStateMachine implements StateMachine {
  /** Where applied puts go. */
  interface ApplyTarget {
    void put(byte[] key, byte[] value) throws RocksDBException;
  }

  private final ApplyTarget target;

  KvStateMachine(ApplyTarget target) {
    this.target = target;
  }

  @Override
  public Object runOperation(long commitIndex, Object operation) {
    if (operation instanceof PutOp put) {
      try {
        target.put(LogCodec.dataKey(put.key()), put.value());
      } catch (RocksDBException e) {
        throw new IllegalStateException("apply failed at commitIndex=" + commitIndex, e);
      }
      return commitIndex;
    }
    return null;
  }

  @Override
  public void takeSnapshot(long commitIndex, Consumer<Object> chunks) {
    chunks.accept(commitIndex);
  }

  @Override
  public void installSnapshot(long commitIndex, List<Object> chunks) {
    throw new IllegalStateException("spike cannot install a snapshot (no range transfer) commitIndex=" + commitIndex);
  }

  @Override
  public Object getNewTermOperation() {
    return PutOp.NEW_TERM;
  }
}
