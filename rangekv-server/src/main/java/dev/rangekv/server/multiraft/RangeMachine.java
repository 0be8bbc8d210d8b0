package dev.rangekv.server.multiraft;

import dev.rangekv.proto.replica.CommandResult;
import dev.rangekv.proto.replica.RangeCommand;
import dev.rangekv.proto.replica.RangeQuery;
import dev.rangekv.server.replica.LogPoint;
import dev.rangekv.server.replica.RangeReplica;
import dev.rangekv.server.replica.StagedSpan;
import io.microraft.RaftNode;
import io.microraft.report.RaftTerm;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A range group's MicroRaft state machine: hands committed commands to the range's {@link RangeReplica}
 * with their term and index, serves queries, and makes a snapshot the range's durable applied index
 * (the store is the snapshot, no copy); installing one fetches the range's span from the leader's node.
 * Entries at or below the applied index the store held when the group opened are already in the store
 * and are skipped (MicroRaft replays the log after its last snapshot). Runs on the group's stripe.
 */
final class RangeMachine implements io.microraft.statemachine.StateMachine {
  private static final Logger log = LoggerFactory.getLogger(RangeMachine.class);
  private static final long SPAN_FETCH_SECONDS = 120;

  private final RangeReplica replica;
  private final GroupLog groupLog;
  private final String selfId;
  private Supplier<RaftNode> node = () -> null;
  /** Entries up to here are in the store already (loaded at open or installed). */
  private volatile long inStoreThrough;
  /** The term in which this replica, leading, applied its own new-term entry; 0: none. */
  private volatile int readyTerm;

  RangeMachine(RangeReplica replica, GroupLog groupLog, String selfId) {
    this.replica = replica;
    this.groupLog = groupLog;
    this.selfId = selfId;
    this.inStoreThrough = replica.load().map(LogPoint::index).orElse(0L);
  }

  void bind(Supplier<RaftNode> node) {
    this.node = node;
  }

  RangeReplica replica() {
    return replica;
  }

  int readyTerm() {
    return readyTerm;
  }

  @Override
  public Object runOperation(long commitIndex, Object operation) {
    if (operation instanceof RangeQuery q) {
      return replica.serve(q);
    }
    if (operation instanceof RaftCodec.NewTerm) {
      RaftNode n = node.get();
      RaftTerm term = n == null ? null : n.getTerm();
      if (term != null && selfId.equals(NodeEndpoint.idOf(term.getLeaderEndpoint()))) {
        readyTerm = term.getTerm();
      }
      replica.appliedTo(commitIndex);
      return null;
    }
    if (commitIndex <= inStoreThrough) {
      replica.appliedTo(commitIndex);
      return CommandResult.getDefaultInstance();
    }
    Optional<RangeCommand> cmd = operation instanceof RangeCommand c ? Optional.of(c) : Optional.empty();
    long term = groupLog.terms.termAt(commitIndex).orElse(0);
    return replica.apply(cmd, term, commitIndex);
  }

  @Override
  public void takeSnapshot(long commitIndex, Consumer<Object> chunks) {
    long term = groupLog.terms.termAt(commitIndex).orElse(0);
    // durable before MicroRaft drops the log up to it: a restart replays from the store's applied index
    replica.persistApplied(new LogPoint(term, commitIndex));
    chunks.accept(RaftCodec.StoreMarker.INSTANCE);
  }

  @Override
  public void installSnapshot(long commitIndex, List<Object> chunks) {
    if (commitIndex <= inStoreThrough) {
      return; // restored at open: the store holds it
    }
    RaftNode n = node.get();
    String leader = n == null ? "" : NodeEndpoint.idOf(n.getTerm().getLeaderEndpoint());
    log.info("range fetches a span snapshot rangeId={} snapshotIndex={} leader={}", replica.rangeId(), commitIndex,
        leader);
    try {
      // blocks this stripe while the span streams in: moves are rare and a new replica has nothing to serve
      StagedSpan span = replica.fetchSpan(leader).get(SPAN_FETCH_SECONDS, TimeUnit.SECONDS);
      LogPoint point = replica.install(span);
      inStoreThrough = Math.max(commitIndex, point.index());
      replica.appliedTo(inStoreThrough);
    } catch (Exception e) {
      if (e instanceof InterruptedException) {
        Thread.currentThread().interrupt();
      }
      throw new IllegalStateException("span snapshot of range " + replica.rangeId() + " failed: " + e, e);
    }
  }

  @Override
  public Object getNewTermOperation() {
    return RaftCodec.NewTerm.INSTANCE;
  }
}
