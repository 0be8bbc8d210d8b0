package dev.rangekv.bench.multiraft;

import io.microraft.RaftEndpoint;
import io.microraft.model.log.LogEntry;
import io.microraft.model.log.RaftGroupMembersView;
import io.microraft.model.log.SnapshotChunk;
import io.microraft.model.persistence.RaftEndpointPersistentState;
import io.microraft.model.persistence.RaftTermPersistentState;
import io.microraft.persistence.RaftStore;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.List;
import org.rocksdb.RocksDBException;

/**
 * One group's Raft log, term and vote in its node's RocksDB (layout in {@link LogCodec}). Besides
 * storing, it tracks what of its log and term is durable, so that the runtime can check that no
 * message leaves the node before the sync that covers the append or vote it depends on. Used on the
 * group's executor thread only.
 */
final class GroupStore implements RaftStore {
  private final int group;
  private final WriteTarget target;
  private long appendedIndex;
  private int appendedTerm;
  private long durableIndex;
  private int durableTerm;

  GroupStore(int group, WriteTarget target) {
    this.group = group;
    this.target = target;
  }

  int group() {
    return group;
  }

  long appendedIndex() {
    return appendedIndex;
  }

  long durableIndex() {
    return durableIndex;
  }

  int durableTerm() {
    return durableTerm;
  }

  /** Called after a synced write that holds everything this store has written so far. */
  void markDurable() {
    durableIndex = appendedIndex;
    durableTerm = appendedTerm;
  }

  @Override
  public void persistAndFlushLocalEndpoint(RaftEndpointPersistentState state) throws IOException {
    put(LogCodec.metaKey(group, (byte) 0),
        ByteBuffer.allocate(5).putInt(id(state.getLocalEndpoint())).put((byte) (state.isVoting() ? 1 : 0)).array());
    flush();
  }

  @Override
  public void persistAndFlushInitialGroupMembers(RaftGroupMembersView members) throws IOException {
    ByteBuffer out = ByteBuffer.allocate(8 + 4 * members.getMembers().size() + 4);
    out.putLong(members.getLogIndex()).putInt(members.getMembers().size());
    members.getMembers().forEach(m -> out.putInt(id(m)));
    put(LogCodec.metaKey(group, (byte) 1), out.array());
    flush();
  }

  @Override
  public void persistAndFlushTerm(RaftTermPersistentState state) throws IOException {
    RaftEndpoint votedFor = state.getVotedFor();
    put(LogCodec.groupKey(LogCodec.TERM, group),
        ByteBuffer.allocate(8).putInt(state.getTerm()).putInt(votedFor == null ? -1 : id(votedFor)).array());
    appendedTerm = Math.max(appendedTerm, state.getTerm());
    flush();
  }

  @Override
  public void persistLogEntries(List<LogEntry> entries) throws IOException {
    for (LogEntry entry : entries) {
      put(LogCodec.logKey(group, entry.getIndex()), LogCodec.encode(entry));
      appendedIndex = entry.getIndex();
      appendedTerm = Math.max(appendedTerm, entry.getTerm());
    }
  }

  @Override
  public void persistSnapshotChunk(SnapshotChunk chunk) throws IOException {
    // the state machine's state is the node's data keys; the snapshot is only the applied index
    put(LogCodec.groupKey(LogCodec.SNAPSHOT, group),
        ByteBuffer.allocate(12).putLong(chunk.getIndex()).putInt(chunk.getTerm()).array());
    appendedIndex = Math.max(appendedIndex, chunk.getIndex());
  }

  @Override
  public void truncateLogEntriesFrom(long indexInclusive) throws IOException {
    try {
      target.batch().deleteRange(LogCodec.logKey(group, indexInclusive), LogCodec.logKey(group, Long.MAX_VALUE));
      target.wrote(this);
    } catch (RocksDBException e) {
      throw new IOException(e);
    }
    appendedIndex = Math.min(appendedIndex, indexInclusive - 1);
  }

  @Override
  public void truncateLogEntriesUntil(long indexInclusive) throws IOException {
    try {
      target.batch().deleteRange(LogCodec.logKey(group, 0), LogCodec.logKey(group, indexInclusive + 1));
      target.wrote(this);
    } catch (RocksDBException e) {
      throw new IOException(e);
    }
  }

  @Override
  public void deleteSnapshotChunks(long logIndex, int snapshotChunkCount) {
    // one marker per snapshot, overwritten by the next: nothing to delete
  }

  @Override
  public void flush() throws IOException {
    try {
      target.flush(this);
    } catch (RocksDBException e) {
      throw new IOException(e);
    }
  }

  private void put(byte[] key, byte[] value) throws IOException {
    try {
      target.batch().put(key, value);
      target.wrote(this);
    } catch (RocksDBException e) {
      throw new IOException(e);
    }
  }

  private static int id(RaftEndpoint endpoint) {
    return ((NodeEndpoint) endpoint).node();
  }
}
