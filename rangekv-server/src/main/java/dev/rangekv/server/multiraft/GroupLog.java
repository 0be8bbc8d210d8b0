package dev.rangekv.server.multiraft;

import com.google.protobuf.InvalidProtocolBufferException;
import dev.rangekv.proto.multiraft.Chunk;
import dev.rangekv.proto.multiraft.Entry;
import dev.rangekv.proto.multiraft.Members;
import dev.rangekv.storage.raftlog.LogDb;
import io.microraft.RaftEndpoint;
import io.microraft.model.log.LogEntry;
import io.microraft.model.log.RaftGroupMembersView;
import io.microraft.model.log.SnapshotChunk;
import io.microraft.model.log.SnapshotEntry;
import io.microraft.model.persistence.RaftEndpointPersistentState;
import io.microraft.model.persistence.RaftTermPersistentState;
import io.microraft.persistence.RaftStore;
import io.microraft.persistence.RestoredRaftState;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * One range group's Raft log, term and vote in the node's log database ({@link LogKeys}), written into
 * its stripe's cycle batch: nothing is durable before the cycle's synced write, and {@link #flush} only
 * marks the group as part of it. It tracks what of its log and term is durable, so that the stripe
 * holds back every message that depends on an unsynced append or vote. Used on the group's stripe thread.
 */
final class GroupLog implements RaftStore {
  private final long rangeId;
  private final Stripe stripe;
  final TermRuns terms = new TermRuns();
  private long appendedIndex;
  private int appendedTerm;
  private volatile long durableIndex;
  private volatile int durableTerm;
  /** The group's initial members' endpoints (sent with a leader's requests to replicas being added). */
  private volatile List<String> initialMembers = List.of();
  /** When each peer replica (incarnation) of this group last sent it a message: such a replica runs the group. */
  private final PeersHeard heard = new PeersHeard();

  GroupLog(long rangeId, Stripe stripe) {
    this.rangeId = rangeId;
    this.stripe = stripe;
  }

  long rangeId() {
    return rangeId;
  }

  /** The replica {@code endpoint} (its wire form) of this group sent a message at {@code now} (nanoTime). */
  void heardFrom(String endpoint, long now) {
    heard.heard(endpoint, now);
  }

  /**
   * The initial members to send with a leader's request to the replica {@code to}: none while it has sent
   * this group a message within {@code within} nanoseconds (it runs the group: a replica still joining
   * sends nothing), else all. A replica added again to its node is a new incarnation, never heard from.
   */
  List<String> initialMembersFor(RaftEndpoint to, long now, long within) {
    return heard.within(NodeEndpoint.wireOf(to), now, within) ? List.of() : initialMembers;
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

  int appendedTerm() {
    return appendedTerm;
  }

  /** Called after a synced write that holds everything this log had written when it was handed over. */
  void markDurable(long index, int term) {
    durableIndex = index;
    durableTerm = Math.max(durableTerm, term);
  }

  @Override
  public void persistAndFlushLocalEndpoint(RaftEndpointPersistentState state) {
    byte[] id = NodeEndpoint.wireOf(state.getLocalEndpoint()).getBytes(StandardCharsets.UTF_8);
    put(LogKeys.of(LogKeys.ENDPOINT, rangeId),
        ByteBuffer.allocate(1 + id.length).put((byte) (state.isVoting() ? 1 : 0)).put(id).array());
    flush();
  }

  @Override
  public void persistAndFlushInitialGroupMembers(RaftGroupMembersView members) {
    put(LogKeys.of(LogKeys.INITIAL, rangeId), RaftCodec.members(members).toByteArray());
    initialMembers = RaftCodec.ids(members.getMembers());
    flush();
  }

  @Override
  public void persistAndFlushTerm(RaftTermPersistentState state) {
    byte[] voted = NodeEndpoint.wireOf(state.getVotedFor()).getBytes(StandardCharsets.UTF_8);
    put(LogKeys.of(LogKeys.TERM, rangeId), ByteBuffer.allocate(4 + voted.length).putInt(state.getTerm()).put(voted).array());
    appendedTerm = Math.max(appendedTerm, state.getTerm());
    flush();
  }

  @Override
  public void persistLogEntries(List<LogEntry> entries) {
    for (LogEntry entry : entries) {
      put(LogKeys.log(rangeId, entry.getIndex()), RaftCodec.entry(entry).toByteArray());
      terms.appended(entry.getIndex(), entry.getTerm());
      appendedIndex = entry.getIndex();
      appendedTerm = Math.max(appendedTerm, entry.getTerm());
    }
    stripe.appended.addAndGet(entries.size());
  }

  @Override
  public void persistSnapshotChunk(SnapshotChunk chunk) {
    put(LogKeys.of(LogKeys.SNAPSHOT, rangeId), RaftCodec.chunk(chunk).toByteArray());
    terms.snapshotAt(chunk.getIndex(), chunk.getTerm());
    appendedIndex = Math.max(appendedIndex, chunk.getIndex());
  }

  @Override
  public void truncateLogEntriesFrom(long indexInclusive) {
    stripe.batch().deleteRange(LogKeys.log(rangeId, indexInclusive), LogKeys.after(LogKeys.LOG, rangeId));
    stripe.wrote(this);
    terms.truncatedFrom(indexInclusive);
    appendedIndex = Math.min(appendedIndex, indexInclusive - 1);
  }

  @Override
  public void truncateLogEntriesUntil(long indexInclusive) {
    stripe.batch().deleteRange(LogKeys.log(rangeId, 0), LogKeys.log(rangeId, indexInclusive + 1));
    stripe.wrote(this);
  }

  @Override
  public void deleteSnapshotChunks(long logIndex, int snapshotChunkCount) {
    // one chunk per snapshot, overwritten by the next: nothing to delete
  }

  /**
   * Nothing to do: every write of this log already joined the stripe's batch ({@link #put}, the truncations),
   * and the cycle's one synced write makes it durable. A flush with nothing written since (a follower's
   * answer to a heartbeat or to an append that only moves the commit index, a leader's flush task) must not
   * cost a synced write of its own: the stripe holds each cycle's messages until no write of theirs or
   * before them is pending, which covers what this log wrote in earlier cycles.
   */
  @Override
  public void flush() {}

  private void put(byte[] key, byte[] value) {
    stripe.batch().put(key, value);
    stripe.wrote(this);
  }

  /** Deletes every key of {@code rangeId}'s group (in {@code batch}). */
  static void deleteAll(dev.rangekv.storage.raftlog.LogBatch batch, long rangeId) {
    for (byte kind : LogKeys.GROUP_KINDS) {
      batch.deleteRange(LogKeys.of(kind, rangeId), LogKeys.after(kind, rangeId));
    }
  }

  /**
   * Records (in {@code batch}) that the replica stored for {@code rangeId} here, if any, is destroyed: its
   * incarnation becomes the range's retired one unless a later one was retired already.
   */
  static void retire(LogDb db, dev.rangekv.storage.raftlog.LogBatch batch, long rangeId) {
    byte[] endpoint = db.get(LogKeys.of(LogKeys.ENDPOINT, rangeId));
    if (endpoint == null) {
      return;
    }
    NodeEndpoint self = NodeEndpoint.parse(new String(endpoint, 1, endpoint.length - 1, StandardCharsets.UTF_8));
    if (retired(db, rangeId).map(r -> self.laterThan(r)).orElse(true)) {
      batch.put(LogKeys.of(LogKeys.RETIRED, rangeId), self.wire().getBytes(StandardCharsets.UTF_8));
    }
  }

  /** The latest incarnation of this node's replica of {@code rangeId} that was destroyed here, if any. */
  static Optional<NodeEndpoint> retired(LogDb db, long rangeId) {
    byte[] retired = db.get(LogKeys.of(LogKeys.RETIRED, rangeId));
    return retired == null ? Optional.empty()
        : Optional.of(NodeEndpoint.parse(new String(retired, StandardCharsets.UTF_8)));
  }

  /** True when the log database holds a group of {@code rangeId}. */
  static boolean exists(LogDb db, long rangeId) {
    return db.get(LogKeys.of(LogKeys.ENDPOINT, rangeId)) != null;
  }

  /**
   * The state {@code rangeId}'s group left in the log database (endpoint, initial members, term and vote,
   * last snapshot, the entries after it), with the term runs of what it restores; empty when none.
   */
  Optional<RestoredRaftState> restore(LogDb db) {
    byte[] endpoint = db.get(LogKeys.of(LogKeys.ENDPOINT, rangeId));
    byte[] initial = db.get(LogKeys.of(LogKeys.INITIAL, rangeId));
    if (endpoint == null || initial == null) {
      return Optional.empty();
    }
    try {
      RaftEndpoint self = NodeEndpoint.parse(new String(endpoint, 1, endpoint.length - 1, StandardCharsets.UTF_8));
      RaftEndpointPersistentState endpointState = RaftCodec.MODEL.createRaftEndpointPersistentStateBuilder()
          .setLocalEndpoint(self).setVoting(endpoint[0] == 1).build();
      RaftGroupMembersView initialMembers = RaftCodec.membersView(Members.parseFrom(initial));
      this.initialMembers = RaftCodec.ids(initialMembers.getMembers());
      byte[] term = db.get(LogKeys.of(LogKeys.TERM, rangeId));
      int t = 0;
      RaftEndpoint voted = null;
      if (term != null) {
        ByteBuffer in = ByteBuffer.wrap(term);
        t = in.getInt();
        String v = new String(term, 4, term.length - 4, StandardCharsets.UTF_8);
        voted = v.isEmpty() ? null : NodeEndpoint.parse(v);
      }
      RaftTermPersistentState termState = RaftCodec.MODEL.createRaftTermPersistentStateBuilder().setTerm(t)
          .setVotedFor(voted).build();
      SnapshotEntry snapshot = null;
      long after = 0;
      byte[] chunkBytes = db.get(LogKeys.of(LogKeys.SNAPSHOT, rangeId));
      if (chunkBytes != null) {
        Chunk c = Chunk.parseFrom(chunkBytes);
        SnapshotChunk chunk = RaftCodec.snapshotChunk(c);
        snapshot = RaftCodec.MODEL.createSnapshotEntryBuilder().setIndex(c.getIndex()).setTerm(c.getTerm())
            .setSnapshotChunks(List.of(chunk)).setGroupMembersView(chunk.getGroupMembersView()).build();
        after = c.getIndex();
        terms.snapshotAt(c.getIndex(), c.getTerm());
      }
      List<LogEntry> entries = new ArrayList<>();
      long[] last = {after};
      InvalidProtocolBufferException[] bad = {null};
      db.scan(LogKeys.log(rangeId, after + 1), LogKeys.after(LogKeys.LOG, rangeId), (k, v) -> {
        try {
          Entry e = Entry.parseFrom(v);
          if (e.getIndex() != last[0] + 1) {
            return false; // a gap: what follows was never acknowledged as a contiguous log
          }
          entries.add(RaftCodec.logEntry(e));
          terms.appended(e.getIndex(), e.getTerm());
          last[0] = e.getIndex();
          return true;
        } catch (InvalidProtocolBufferException ex) {
          bad[0] = ex;
          return false;
        }
      });
      if (bad[0] != null) {
        throw bad[0];
      }
      appendedIndex = last[0];
      appendedTerm = Math.max(t, entries.isEmpty() ? (snapshot == null ? 0 : snapshot.getTerm())
          : entries.get(entries.size() - 1).getTerm());
      markDurable(appendedIndex, appendedTerm);
      return Optional.of(new RestoredRaftState(endpointState, initialMembers, termState, snapshot, entries));
    } catch (InvalidProtocolBufferException e) {
      throw new IllegalStateException("corrupt Raft log of range " + rangeId, e);
    }
  }
}
