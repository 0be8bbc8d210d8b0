package dev.rangekv.meta.ratis;

import dev.rangekv.meta.state.MetaGroup;
import dev.rangekv.meta.state.MetaView;
import dev.rangekv.meta.state.MetaState;
import dev.rangekv.meta.state.MetaChange;
import dev.rangekv.meta.state.MetaCommands;
import dev.rangekv.meta.state.NotMetaLeaderException;
import dev.rangekv.meta.state.MalformedMetaCommandException;
import com.google.protobuf.InvalidProtocolBufferException;
import dev.rangekv.core.cluster.NodeInfo;
import dev.rangekv.core.rangemap.RangeIdBlock;
import dev.rangekv.proto.meta.AllocateRangeIds;
import dev.rangekv.proto.meta.MetaApplyReply;
import dev.rangekv.proto.meta.MetaCommand;
import java.io.IOException;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.ratis.protocol.ClientId;
import org.apache.ratis.protocol.Message;
import org.apache.ratis.protocol.RaftClientReply;
import org.apache.ratis.protocol.RaftClientRequest;
import org.apache.ratis.protocol.RaftPeer;
import org.apache.ratis.protocol.RaftPeerId;
import org.apache.ratis.protocol.SetConfigurationRequest;
import org.apache.ratis.protocol.exceptions.NotLeaderException;
import org.apache.ratis.server.DivisionInfo;
import org.apache.ratis.server.RaftServer;
import org.apache.ratis.thirdparty.com.google.protobuf.ByteString;

/**
 * The meta group as this node's Ratis server hosts it: reads come from the local {@link
 * MetaStateMachine}, leadership from the division's info, and {@link #propose} submits the command
 * to the local division (the leader) without a network hop.
 *
 * <p>Failures of {@link #propose}: {@link NotMetaLeaderException} when this node does not lead (not
 * proposed) or lost leadership while the command was pending (it may still commit: the meta commands
 * are reconciliations, so re-proposing at the new leader is harmless except for duplicate events);
 * {@link MalformedMetaCommandException} when the entry was applied as skipped; otherwise the Ratis
 * exception, or a {@link java.util.concurrent.TimeoutException} after the timeout. Thread-safe.
 */
public final class RaftMetaGroup implements MetaGroup {
  private final RaftServer server;
  private final MetaStateMachine stateMachine;
  private final Duration timeout;
  /** A configuration change waits for new voters to catch up, which may take a snapshot transfer. */
  private static final Duration CONFIGURATION_TIMEOUT = Duration.ofMinutes(2);
  private final ClientId clientId = ClientId.randomId();
  private final AtomicLong callIds = new AtomicLong();

  /** Proposals time out after 10 s. */
  public RaftMetaGroup(RaftServer server, MetaStateMachine stateMachine) {
    this(server, stateMachine, Duration.ofSeconds(10));
  }

  public RaftMetaGroup(RaftServer server, MetaStateMachine stateMachine, Duration timeout) {
    this.server = server;
    this.stateMachine = stateMachine;
    this.timeout = timeout;
  }

  @Override
  public MetaView view() {
    return stateMachine.state();
  }

  /** The same view, with the full state API ({@link MetaState#node}, snapshots). */
  public MetaState state() {
    return stateMachine.state();
  }

  @Override
  public boolean isLeader() {
    return info().map(i -> i.isLeader() && i.isLeaderReady()).orElse(false);
  }

  @Override
  public Optional<String> leaderNodeId() {
    return info().map(DivisionInfo::getLeaderId).map(RaftPeerId::toString);
  }

  @Override
  public List<String> voterIds() {
    try {
      return server.getDivision(MetaGroups.GROUP_ID).getRaftConf().getCurrentPeers().stream()
          .map(p -> p.getId().toString()).sorted().toList();
    } catch (IOException e) {
      return List.of();
    }
  }

  @Override
  public CompletableFuture<Void> changeVoters(List<NodeInfo> voters) {
    if (!isLeader()) {
      return CompletableFuture.failedFuture(new NotMetaLeaderException(leaderNodeId(), "not the meta leader"));
    }
    try {
      List<RaftPeer> current = List.copyOf(server.getDivision(MetaGroups.GROUP_ID).getRaftConf().getCurrentPeers());
      List<RaftPeer> next = voters.stream().map(n -> MetaGroups.peer(n.nodeId(), n.raftAddress())).toList();
      SetConfigurationRequest.Arguments args = SetConfigurationRequest.Arguments.newBuilder()
          .setServersInNewConf(next)
          .setServersInCurrentConf(current)
          .setMode(SetConfigurationRequest.Mode.COMPARE_AND_SET)
          .build();
      // Ratis completes this reply on its leader thread while holding the server's lock: a caller's
      // continuation that proposes (the meta-voters event) would wait there for a client thread that needs
      // that lock, and the meta leader froze. Continuations run on another thread (async for every outcome).
      CompletableFuture<Void> out = new CompletableFuture<>();
      server.setConfigurationAsync(new SetConfigurationRequest(clientId, server.getId(), MetaGroups.GROUP_ID,
              callIds.incrementAndGet(), args))
          .orTimeout(CONFIGURATION_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS)
          .whenCompleteAsync((reply, err) -> {
            if (err != null) {
              out.completeExceptionally(err);
            } else if (!reply.isSuccess()) {
              out.completeExceptionally(new CompletionException(reply.getException()));
            } else {
              out.complete(null);
            }
          });
      return out;
    } catch (IOException e) {
      return CompletableFuture.failedFuture(e);
    }
  }

  private Optional<DivisionInfo> info() {
    try {
      return Optional.of(server.getDivision(MetaGroups.GROUP_ID).getInfo());
    } catch (IOException e) {
      return Optional.empty(); // this node hosts no meta replica (or not yet)
    }
  }

  private CompletableFuture<RaftClientReply> submit(MetaCommand command) {
    if (!isLeader()) {
      return CompletableFuture.failedFuture(new NotMetaLeaderException(leaderNodeId(), "not the meta leader"));
    }
    RaftClientRequest request = RaftClientRequest.newBuilder()
        .setClientId(clientId)
        .setServerId(server.getId())
        .setGroupId(MetaGroups.GROUP_ID)
        .setCallId(callIds.incrementAndGet())
        .setMessage(Message.valueOf(ByteString.copyFrom(command.toByteArray())))
        .setType(RaftClientRequest.writeRequestType())
        .build();
    CompletableFuture<RaftClientReply> submitted;
    try {
      submitted = server.submitClientRequestAsync(request);
    } catch (IOException e) {
      return CompletableFuture.failedFuture(e);
    }
    return submitted.orTimeout(timeout.toMillis(), TimeUnit.MILLISECONDS);
  }

  @Override
  public CompletableFuture<MetaView> propose(MetaChange change) {
    return propose(MetaCommands.encode(change));
  }

  /** Proposes an entry already encoded (tests replay scripts of wire entries through it). */
  public CompletableFuture<MetaView> propose(MetaCommand command) {
    return submit(command).thenApply(reply -> {
      applied(reply);
      return stateMachine.state();
    });
  }

  /** Proposes an {@code allocate_range_ids} entry; the block comes from that entry's own reply. */
  @Override
  public CompletableFuture<RangeIdBlock> allocateRangeIds(int count) {
    MetaCommand cmd = MetaCommand.newBuilder()
        .setAllocateRangeIds(AllocateRangeIds.newBuilder().setCount(count)).build();
    return submit(cmd).thenApply(reply -> {
      MetaApplyReply applied = applied(reply);
      return new RangeIdBlock(applied.getFirstRangeId(), applied.getRangeIdCount());
    });
  }

  private MetaApplyReply applied(RaftClientReply reply) {
    if (!reply.isSuccess()) {
      if (reply.getException() instanceof NotLeaderException nle) {
        Optional<String> hint = Optional.ofNullable(nle.getSuggestedLeader()).map(p -> p.getId().toString());
        throw new NotMetaLeaderException(hint.or(this::leaderNodeId), "meta leadership lost: " + nle.getMessage());
      }
      throw new CompletionException(reply.getException());
    }
    MetaApplyReply applied;
    try {
      applied = reply.getMessage() == null ? MetaApplyReply.getDefaultInstance()
          : MetaApplyReply.parseFrom(reply.getMessage().getContent().asReadOnlyByteBuffer());
    } catch (InvalidProtocolBufferException e) {
      throw new IllegalStateException("undecodable reply of the meta state machine", e);
    }
    if (!applied.getSkipped().isEmpty()) {
      throw new MalformedMetaCommandException(applied.getSkipped());
    }
    return applied;
  }
}
