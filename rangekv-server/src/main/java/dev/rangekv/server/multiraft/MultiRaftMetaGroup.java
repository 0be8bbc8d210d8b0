package dev.rangekv.server.multiraft;

import dev.rangekv.core.cluster.NodeInfo;
import dev.rangekv.core.rangemap.RangeIdBlock;
import dev.rangekv.meta.state.MalformedMetaCommandException;
import dev.rangekv.meta.state.MetaChange;
import dev.rangekv.meta.state.MetaCommands;
import dev.rangekv.meta.state.MetaGroup;
import dev.rangekv.meta.state.MetaView;
import dev.rangekv.meta.state.NotMetaLeaderException;
import dev.rangekv.proto.meta.AllocateRangeIds;
import dev.rangekv.proto.meta.MetaApplyReply;
import dev.rangekv.proto.meta.MetaCommand;
import dev.rangekv.server.consensus.ConsensusException;
import dev.rangekv.server.consensus.Member;
import io.microraft.RaftNode;
import io.microraft.RaftNodeStatus;
import io.microraft.report.RaftTerm;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;

/**
 * The meta range's group as this node's multi-raft engine runs it: reads come from the local {@link
 * MetaMachine}, leadership from the MicroRaft node (leading once its new-term entry applied: before that,
 * a new leader may not have applied everything its predecessors committed), and {@link #propose}
 * replicates on the local node, which must lead. Before a replica being added to the meta range started
 * its group (it waits for the leader's first message) it leads nothing and knows no voters. Proposals'
 * continuations run on the executor given, never on the stripe. Failures as {@link MetaGroup} says:
 * {@link NotMetaLeaderException} with the leader's node id when known, {@link
 * MalformedMetaCommandException} for a skipped entry. Thread-safe.
 */
final class MultiRaftMetaGroup implements MetaGroup {
  /** A configuration change waits for new voters to catch up. */
  private static final Duration CONFIGURATION_TIMEOUT = Duration.ofMinutes(2);

  private final String selfId;
  private final MetaMachine machine;
  /** The running MicroRaft node; null while a replica being added waits for its leader. */
  private final Supplier<RaftNode> node;
  private final MembershipChanges membership;
  private final Duration timeout;
  private final Executor continuations;

  MultiRaftMetaGroup(String selfId, MetaMachine machine, Supplier<RaftNode> node, MembershipChanges membership,
      Duration timeout, Executor continuations) {
    this.selfId = selfId;
    this.machine = machine;
    this.node = node;
    this.membership = membership;
    this.timeout = timeout;
    this.continuations = continuations;
  }

  @Override
  public MetaView view() {
    return machine.state();
  }

  @Override
  public boolean isLeader() {
    RaftNode n = node.get();
    if (n == null || n.getStatus() != RaftNodeStatus.ACTIVE) {
      return false;
    }
    RaftTerm term = n.getTerm();
    return term != null && selfId.equals(NodeEndpoint.idOf(term.getLeaderEndpoint()))
        && machine.readyTerm() == term.getTerm();
  }

  @Override
  public Optional<String> leaderNodeId() {
    RaftNode n = node.get();
    RaftTerm term = n == null ? null : n.getTerm();
    String leader = term == null ? "" : NodeEndpoint.idOf(term.getLeaderEndpoint());
    return leader.isEmpty() ? Optional.empty() : Optional.of(leader);
  }

  @Override
  public List<String> voterIds() {
    RaftNode n = node.get();
    return n == null ? List.of() : RaftCodec.nodeIds(n.getEffectiveMembers().getVotingMembers()).stream().sorted().toList();
  }

  @Override
  public CompletableFuture<Void> changeVoters(List<NodeInfo> voters) {
    RaftNode n = node.get();
    if (n == null || !isLeader()) {
      return CompletableFuture.failedFuture(new NotMetaLeaderException(leaderNodeId(), "not the meta leader"));
    }
    List<Member> current = RaftCodec.nodeIds(n.getCommittedMembers().getVotingMembers()).stream()
        .map(id -> new Member(id, "")).toList();
    List<Member> next = voters.stream().map(v -> new Member(v.nodeId(), v.raftAddress())).toList();
    return membership.change(MultiRaftMetaConsensus.GROUP_ID, current, next, CONFIGURATION_TIMEOUT)
        .whenCompleteAsync((v, e) -> { }, continuations);
  }

  @Override
  public CompletableFuture<MetaView> propose(MetaChange change) {
    return submit(MetaCommands.encode(change)).thenApply(reply -> machine.state());
  }

  @Override
  public CompletableFuture<RangeIdBlock> allocateRangeIds(int count) {
    MetaCommand cmd = MetaCommand.newBuilder().setAllocateRangeIds(AllocateRangeIds.newBuilder().setCount(count)).build();
    return submit(cmd).thenApply(reply -> new RangeIdBlock(reply.getFirstRangeId(), reply.getRangeIdCount()));
  }

  /** Replicates {@code command} here (the leader) and completes, off the stripe, with its apply reply. */
  private CompletableFuture<MetaApplyReply> submit(MetaCommand command) {
    RaftNode n = node.get();
    if (n == null || !isLeader()) {
      return CompletableFuture.failedFuture(new NotMetaLeaderException(leaderNodeId(), "not the meta leader"));
    }
    return n.replicate(command).orTimeout(timeout.toMillis(), TimeUnit.MILLISECONDS)
        .handleAsync((o, e) -> {
          if (e != null) {
            RuntimeException mapped = MultiRaftEngine.mapped(e, "meta proposal");
            if (mapped instanceof ConsensusException c && c.kind() == ConsensusException.Kind.NOT_LEADER) {
              Optional<String> hint = c.leaderHint().isEmpty() ? leaderNodeId() : Optional.of(c.leaderHint());
              throw new NotMetaLeaderException(hint, "meta leadership lost: " + c.getMessage());
            }
            throw mapped instanceof CompletionException ? mapped : new CompletionException(mapped);
          }
          MetaApplyReply reply = (MetaApplyReply) o.getResult();
          if (!reply.getSkipped().isEmpty()) {
            throw new MalformedMetaCommandException(reply.getSkipped());
          }
          return reply;
        }, continuations);
  }
}
