package dev.rangekv.server.move;

import dev.rangekv.core.key.Key;
import dev.rangekv.core.key.RangeEnd;
import dev.rangekv.core.rangemap.RangeDescriptor;
import dev.rangekv.proto.RangeDescriptorProto;
import dev.rangekv.proto.replica.RaftReplica;
import dev.rangekv.server.consensus.RangeConsensus;
import dev.rangekv.server.replica.ReplicaDirectory;
import dev.rangekv.storage.NodeStore;
import dev.rangekv.storage.RangeLocalState;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * This node's side of replica changes: preparing an empty group for a replica being added (it joins
 * through the leader's configuration change and a span snapshot), and dropping a replica's group, Raft
 * storage, local state and (unless merged away) span data. Blocking; called on transfer threads.
 */
public final class LocalReplicas {
  private static final Logger log = LoggerFactory.getLogger(LocalReplicas.class);

  private final RangeConsensus consensus;
  private final NodeStore store;
  private final ReplicaDirectory directory;
  private final SpanFetcher fetcher;
  private final RaftReplica self;

  public LocalReplicas(RangeConsensus consensus, NodeStore store, ReplicaDirectory directory, SpanFetcher fetcher, RaftReplica self) {
    this.consensus = consensus;
    this.store = store;
    this.directory = directory;
    this.fetcher = fetcher;
    this.self = self;
  }

  public RaftReplica self() {
    return self;
  }

  /**
   * Starts {@code rangeId}'s group here with no members (it never campaigns; the leader's membership
   * change brings it in). Any earlier group or local state of the range is dropped first: a stale
   * applied index would make the engine skip the span snapshot ("already installed").
   */
  public void prepare(long rangeId, List<RaftReplica> known, long bytesPerSecond) throws IOException {
    directory.learnAddresses(known);
    fetcher.limit(rangeId, bytesPerSecond);
    consensus.destroy(rangeId);
    store.deleteRangeLocalState(rangeId);
    directory.holdsAgain(rangeId);
    consensus.createEmpty(rangeId);
    log.info("replica prepared rangeId={} node={}", rangeId, self.getNodeId());
  }

  /**
   * Removes {@code rangeId}'s group and its consensus storage here, deletes its local state and, unless
   * {@code keepData}, the part of its span no other range on this node covers. Requests for the range
   * are answered with {@code successors} afterwards. Idempotent.
   */
  public void drop(long rangeId, boolean keepData, List<RangeDescriptorProto> successors) throws IOException {
    directory.gaveUp(rangeId, successors);
    consensus.destroy(rangeId);
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
