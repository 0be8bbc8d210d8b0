package dev.rangekv.server.node;

import dev.rangekv.core.rangemap.RangeDescriptor;
import dev.rangekv.proto.RangeKvError;
import dev.rangekv.proto.replica.CommandResult;
import dev.rangekv.proto.replica.RaftReplica;
import dev.rangekv.proto.replica.RangeCommand;
import dev.rangekv.server.raft.RaftGateway;
import dev.rangekv.server.replica.RangeReplica;
import dev.rangekv.server.replica.ReplicaDirectory;
import dev.rangekv.server.split.SplitHost;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;

/** The split proposer's view of this node: its replica directory and its Raft gateway. Thread-safe. */
public final class NodeSplitHost implements SplitHost {
  private final ReplicaDirectory directory;
  private final RaftGateway gateway;

  public NodeSplitHost(ReplicaDirectory directory, RaftGateway gateway) {
    this.directory = directory;
    this.gateway = gateway;
  }

  @Override
  public Optional<RangeDescriptor> descriptor(long rangeId) {
    return directory.replica(rangeId).flatMap(RangeReplica::descriptor);
  }

  @Override
  public List<RaftReplica> peers(long rangeId) {
    return directory.replicaRecord(rangeId);
  }

  @Override
  public Optional<RangeKvError> leaderOrRefusal(long rangeId) {
    return gateway.leaderOrRefusal(rangeId);
  }

  @Override
  public CompletableFuture<CommandResult> propose(RangeCommand cmd) {
    return gateway.write(cmd);
  }
}
