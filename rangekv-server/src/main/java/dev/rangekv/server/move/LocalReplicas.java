package dev.rangekv.server.move;

import dev.rangekv.core.key.Key;
import dev.rangekv.core.key.RangeEnd;
import dev.rangekv.core.rangemap.RangeDescriptor;
import dev.rangekv.proto.RangeDescriptorProto;
import dev.rangekv.proto.replica.RaftReplica;
import dev.rangekv.server.replica.RangeGroups;
import dev.rangekv.server.replica.ReplicaDirectory;
import dev.rangekv.storage.NodeStore;
import dev.rangekv.storage.RangeLocalState;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.ratis.protocol.ClientId;
import org.apache.ratis.protocol.GroupManagementRequest;
import org.apache.ratis.protocol.RaftClientReply;
import org.apache.ratis.protocol.RaftGroup;
import org.apache.ratis.protocol.RaftGroupId;
import org.apache.ratis.protocol.exceptions.AlreadyExistsException;
import org.apache.ratis.protocol.exceptions.GroupMismatchException;
import org.apache.ratis.server.RaftServer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * This node's side of replica changes: preparing an empty group for a replica being added (it joins
 * through the leader's configuration change and a span snapshot), and dropping a replica's group, Raft
 * storage, local state and (unless merged away) span data. Blocking; called on transfer threads.
 */
public final class LocalReplicas {
  private static final Logger log = LoggerFactory.getLogger(LocalReplicas.class);

  private final RaftServer server;
  private final NodeStore store;
  private final ReplicaDirectory directory;
  private final SpanFetcher fetcher;
  private final RaftReplica self;
  private final ClientId clientId = ClientId.randomId();
  private final AtomicLong callIds = new AtomicLong();

  public LocalReplicas(RaftServer server, NodeStore store, ReplicaDirectory directory, SpanFetcher fetcher, RaftReplica self) {
    this.server = server;
    this.store = store;
    this.directory = directory;
    this.fetcher = fetcher;
    this.self = self;
  }

  public RaftReplica self() {
    return self;
  }

  /**
   * Starts {@code rangeId}'s group here with an empty peer list (it never campaigns; the leader's
   * configuration change brings it in). Any earlier group or local state of the range is dropped first:
   * a stale applied index would make Ratis skip the span snapshot ("already installed").
   */
  public void prepare(long rangeId, List<RaftReplica> known, long bytesPerSecond) throws IOException {
    directory.learnAddresses(known);
    fetcher.limit(rangeId, bytesPerSecond);
    RaftGroupId groupId = RangeGroups.groupId(rangeId);
    removeGroup(groupId);
    store.deleteRangeLocalState(rangeId);
    directory.holdsAgain(rangeId);
    RaftClientReply reply = server.groupManagement(
        GroupManagementRequest.newAdd(clientId, server.getId(), callIds.incrementAndGet(), RaftGroup.valueOf(groupId)));
    if (!reply.isSuccess() && !((Throwable) reply.getException() instanceof AlreadyExistsException)) {
      throw new IOException("adding empty group failed rangeId=" + rangeId, reply.getException());
    }
    log.info("replica prepared rangeId={} node={}", rangeId, self.getNodeId());
  }

  /**
   * Removes {@code rangeId}'s group and Raft storage here, deletes its local state and, unless
   * {@code keepData}, the part of its span no other range on this node covers. Requests for the range
   * are answered with {@code successors} afterwards. Idempotent.
   */
  public void drop(long rangeId, boolean keepData, List<RangeDescriptorProto> successors) throws IOException {
    directory.gaveUp(rangeId, successors);
    removeGroup(RangeGroups.groupId(rangeId));
    RangeLocalState state = store.rangeState(rangeId).orElse(null);
    if (state != null && !keepData) {
      List<RangeDescriptor> others = new ArrayList<>();
      for (RangeLocalState s : store.allRangeStates()) {
        if (s.rangeId() != rangeId) {
          others.add(s.descriptor());
        }
      }
      for (Span piece : uncovered(state.descriptor().start(), state.descriptor().end(), others)) {
        store.deleteSpan(piece.lo(), piece.hi());
      }
    }
    store.deleteRangeLocalState(rangeId);
    log.info("replica dropped rangeId={} node={} keepData={}", rangeId, self.getNodeId(), keepData);
  }

  private void removeGroup(RaftGroupId groupId) throws IOException {
    boolean running = false;
    for (RaftGroupId g : server.getGroupIds()) {
      running |= g.equals(groupId);
    }
    if (!running) {
      return;
    }
    try {
      RaftClientReply reply = server.groupManagement(GroupManagementRequest.newRemove(
          clientId, server.getId(), callIds.incrementAndGet(), groupId, true, false));
      if (!reply.isSuccess() && !((Throwable) reply.getException() instanceof GroupMismatchException)) {
        throw new IOException("removing group failed groupId=" + groupId, reply.getException());
      }
    } catch (GroupMismatchException e) {
      // already gone
    }
  }

  /** A key span {@code [lo, hi)}. */
  record Span(Key lo, RangeEnd hi) {}

  /** The parts of {@code [lo, hi)} that none of {@code others} covers, in key order. */
  static List<Span> uncovered(Key lo, RangeEnd hi, List<RangeDescriptor> others) {
    List<RangeDescriptor> sorted = new ArrayList<>(others);
    sorted.sort(Comparator.comparing(RangeDescriptor::start));
    List<Span> out = new ArrayList<>();
    Key cursor = lo;
    for (RangeDescriptor o : sorted) {
      if (!hi.isAbove(cursor)) {
        return out;
      }
      if (!o.overlaps(cursor, hi)) {
        continue;
      }
      if (o.start().compareTo(cursor) > 0) {
        out.add(new Span(cursor, RangeEnd.at(o.start())));
      }
      if (o.end().isInfinite()) {
        return out;
      }
      if (o.end().key().compareTo(cursor) > 0) {
        cursor = o.end().key();
      }
    }
    if (hi.isAbove(cursor)) {
      out.add(new Span(cursor, hi));
    }
    return out;
  }
}
