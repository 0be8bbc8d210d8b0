package dev.rangekv.server.multiraft;

import dev.rangekv.meta.state.MetaLimits;
import dev.rangekv.meta.state.MetaState;
import dev.rangekv.proto.meta.MetaApplyReply;
import dev.rangekv.proto.meta.MetaCommand;
import dev.rangekv.proto.meta.MetaSnapshot;
import io.microraft.RaftNode;
import io.microraft.report.RaftTerm;
import java.util.List;
import java.util.function.Consumer;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The meta range's MicroRaft state machine: holds the applied {@link MetaState} (swapped whole, readable
 * from any thread) and applies each {@link MetaCommand} in log order; a snapshot is the whole state (a
 * {@link MetaSnapshot}: descriptors, node records, bounded events), written to the node's log database
 * as the group's snapshot chunk and sent as is to a follower behind the leader's log. Apply never throws:
 * an undecodable or refused entry is skipped the same way on every replica ({@link MetaState#apply} is a
 * pure function of the state and the entry) and its reply says why, as the other adapter's meta state
 * machine does. Runs on the group's stripe.
 */
final class MetaMachine implements io.microraft.statemachine.StateMachine {
  private static final Logger log = LoggerFactory.getLogger(MetaMachine.class);

  private final MetaLimits limits;
  private volatile MetaState state;
  private volatile Runnable onApplied = () -> {};
  private Supplier<RaftNode> node = () -> null;
  /** The term in which this replica, leading, applied its own new-term entry; 0: none. */
  private volatile int readyTerm;

  MetaMachine(MetaLimits limits) {
    this.limits = limits;
    this.state = MetaState.empty(limits);
  }

  void bind(Supplier<RaftNode> node) {
    this.node = node;
  }

  MetaState state() {
    return state;
  }

  int readyTerm() {
    return readyTerm;
  }

  /** Has {@code listener} run after every entry this replica applies (replacing the one set before). */
  void onApplied(Runnable listener) {
    this.onApplied = listener;
  }

  @Override
  public Object runOperation(long commitIndex, Object operation) {
    if (operation instanceof RaftCodec.NewTerm) {
      RaftNode n = node.get();
      RaftTerm term = n == null ? null : n.getTerm();
      if (term != null && term.getLeaderEndpoint() != null
          && NodeEndpoint.idOf(term.getLeaderEndpoint()).equals(NodeEndpoint.idOf(n.getLocalEndpoint()))) {
        readyTerm = term.getTerm();
      }
      return null;
    }
    MetaApplyReply.Builder reply = MetaApplyReply.newBuilder();
    MetaState next = state;
    if (operation instanceof MetaCommand cmd) {
      try {
        next = next.apply(cmd);
        if (cmd.hasAllocateRangeIds()) {
          int count = cmd.getAllocateRangeIds().getCount();
          reply.setFirstRangeId(next.rangeIds().next() - count).setRangeIdCount(count);
        }
      } catch (RuntimeException e) {
        reply.setSkipped(e.getClass().getSimpleName() + ": " + e.getMessage());
      }
    } else {
      reply.setSkipped("undecodable meta command");
    }
    if (!reply.getSkipped().isEmpty()) {
      log.warn("meta entry skipped index={} reason={}", commitIndex, reply.getSkipped());
    }
    state = next;
    onApplied.run();
    return reply.build();
  }

  @Override
  public void takeSnapshot(long commitIndex, Consumer<Object> chunks) {
    chunks.accept(state.toSnapshot());
  }

  @Override
  public void installSnapshot(long commitIndex, List<Object> chunks) {
    for (Object chunk : chunks) {
      if (chunk instanceof MetaSnapshot s) {
        state = MetaState.fromSnapshot(s, limits);
        log.info("meta state loaded snapshotIndex={} mapVersion={} ranges={} nodes={}", commitIndex,
            state.mapVersion(), state.ranges().size(), state.nodes().size());
        onApplied.run();
        return;
      }
    }
    throw new IllegalStateException("a snapshot of the meta range without its state at index " + commitIndex);
  }

  @Override
  public Object getNewTermOperation() {
    return RaftCodec.NewTerm.INSTANCE;
  }
}
