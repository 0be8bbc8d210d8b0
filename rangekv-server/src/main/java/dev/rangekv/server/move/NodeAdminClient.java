package dev.rangekv.server.move;


import com.google.protobuf.ByteString;
import dev.rangekv.proto.KvServiceGrpc;
import dev.rangekv.proto.ListRangesRequest;
import dev.rangekv.proto.ListRangesResponse;
import dev.rangekv.proto.RangeDescriptorProto;
import dev.rangekv.proto.RangeHeader;
import dev.rangekv.proto.RangeKvError;
import dev.rangekv.proto.ReplicaProto;
import dev.rangekv.proto.ReplicaStatus;
import dev.rangekv.proto.admin.AddReplicaRequest;
import dev.rangekv.proto.admin.MergeRangesRequest;
import dev.rangekv.proto.admin.NodeAdminServiceGrpc;
import dev.rangekv.proto.admin.RemoveReplicaRequest;
import dev.rangekv.proto.admin.SplitRangeRequest;
import dev.rangekv.proto.admin.SplitRangeResponse;
import dev.rangekv.proto.admin.TransferLeaderRequest;
import dev.rangekv.proto.convert.RangeKvErrors;
import dev.rangekv.server.raft.PeerChannels;
import io.grpc.ManagedChannel;
import io.grpc.StatusRuntimeException;
import io.grpc.netty.shaded.io.grpc.netty.NettyChannelBuilder;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.function.BiFunction;
import java.util.function.LongFunction;
import java.util.function.Supplier;

/**
 * A blocking tool for tests, benchmarks and people at a console (never the controller, which runs moves
 * as operators sending one async call per step; {@code ServerArchitectureTest} keeps node code off it).
 * Runs replica moves, leadership transfers and merges through the node admin API, as an operator would: finds a range's newest descriptor and leader from the nodes' replica lists, sends
 * each step to the leader, and re-locates on NOT_LEADER / RANGE_MOVED / RANGE_NOT_FOUND or a node that
 * does not answer (bounded by a deadline). Other failures (an aborted add, a refused merge) are thrown
 * as they are. A move of one of 3 or more replicas is one replace (see {@link #move}); a failure leaves
 * the range on its old nodes. Thread-safe.
 */
public final class NodeAdminClient implements AutoCloseable {
  /** How long a finished transfer may take to show in the nodes' reports (a node gives a leadership transfer 10 s). */
  static final Duration LEADERSHIP_REPORT_WAIT = Duration.ofSeconds(20);
  private final Supplier<List<String>> seeds;
  private final Duration deadline;
  private final Map<String, ManagedChannel> channels = new ConcurrentHashMap<>();
  /** Where calls go: its own plaintext channels, or a node's shared (TLS) channels. */
  private final java.util.function.Function<String, ManagedChannel> channelOf;
  /** Client addresses of a range's replicas in the local meta map; empty: unknown here. */
  private final LongFunction<List<String>> replicasOf;

  /** A range's newest descriptor and its leader's node id and client address (empty when unknown). */
  public record Located(RangeDescriptorProto range, String leaderNodeId, String leaderAddress) {}

  public NodeAdminClient(List<String> seeds, Duration deadline) {
    this(fixed(List.copyOf(seeds)), deadline);
  }

  private static Supplier<List<String>> fixed(List<String> seeds) {
    return () -> seeds;
  }

  /** A client whose node addresses are looked up anew for every locate (nodes join and leave). */
  public NodeAdminClient(Supplier<List<String>> seeds, Duration deadline) {
    this.seeds = seeds;
    this.deadline = deadline;
    this.channelOf = address -> channels.computeIfAbsent(address, a -> NettyChannelBuilder.forTarget(a).usePlaintext().build());
    this.replicasOf = id -> List.of();
  }

  /** A node's client: calls go over {@code nodeChannels} (its TLS and cluster id; shared, not closed here). */
  public NodeAdminClient(Supplier<List<String>> seeds, Duration deadline, PeerChannels nodeChannels) {
    this(seeds, deadline, nodeChannels, id -> List.of());
  }

  /**
   * The controller's client: {@code replicasOf} gives the client addresses of a range's replicas from
   * the meta leader's own map (empty when it does not know the range), so a range is located by asking
   * its replicas, not every node; all of {@code seeds} are asked only when its replicas do not know it.
   */
  public NodeAdminClient(Supplier<List<String>> seeds, Duration deadline, PeerChannels nodeChannels,
      LongFunction<List<String>> replicasOf) {
    this.seeds = seeds;
    this.deadline = deadline;
    this.channelOf = nodeChannels::channel;
    this.replicasOf = replicasOf;
  }

  /**
   * The newest descriptor of {@code rangeId} and the leader its replicas report: asked of the replicas
   * the local map names (the meta map may trail a move by a heartbeat, so their own account decides),
   * and of every node only when none of those knows a leader.
   */
  public Optional<Located> locate(long rangeId) {
    List<String> replicas = replicasOf.apply(rangeId);
    if (!replicas.isEmpty()) {
      Optional<Located> found = locateOn(rangeId, replicas);
      if (found.isPresent() && !found.get().leaderAddress().isEmpty()) {
        return found;
      }
    }
    return locateOn(rangeId, seeds.get());
  }

  private Optional<Located> locateOn(long rangeId, List<String> addresses) {
    RangeDescriptorProto newest = null;
    String leader = "";
    String leaderAddress = "";
    for (String seed : addresses) {
      ListRangesResponse r;
      try {
        r = KvServiceGrpc.newBlockingStub(channelOf.apply(seed)).withDeadlineAfter(5, TimeUnit.SECONDS).listRanges(ListRangesRequest.getDefaultInstance());
      } catch (StatusRuntimeException e) {
        continue; // node down: the others answer
      }
      for (ReplicaStatus s : r.getReplicasList()) {
        if (s.getRange().getRangeId() != rangeId) {
          continue;
        }
        if (newest == null || s.getRange().getGeneration() > newest.getGeneration()) {
          newest = s.getRange();
        }
        if (s.getLeader()) {
          leader = r.getNodeId();
          leaderAddress = seed;
        }
      }
    }
    return newest == null ? Optional.empty() : Optional.of(new Located(newest, leader, leaderAddress));
  }

  public RangeDescriptorProto addReplica(long rangeId, String targetAddress, long bytesPerSecond) {
    return onLeader(rangeId, (loc, stub) -> {
      if (addressOf(loc.range(), targetAddress).isPresent()) {
        return loc.range();
      }
      return stub.withDeadlineAfter(30, TimeUnit.MINUTES).addReplica(AddReplicaRequest.newBuilder()
          .setHeader(header(loc.range())).setAddress(targetAddress).setBytesPerSecond(bytesPerSecond).build()).getRange();
    });
  }

  public RangeDescriptorProto removeReplica(long rangeId, String nodeId) {
    return onLeader(rangeId, (loc, stub) -> {
      if (loc.range().getReplicasList().stream().noneMatch(r -> r.getNodeId().equals(nodeId))) {
        return loc.range();
      }
      return stub.removeReplica(RemoveReplicaRequest.newBuilder().setHeader(header(loc.range())).setNodeId(nodeId).build())
          .getRange();
    });
  }

  /**
   * Transfers leadership to {@code nodeId} and waits until the nodes report it, for at most {@link
   * #LEADERSHIP_REPORT_WAIT} (or the deadline when shorter): a transfer not seen by then has failed (its
   * target died, say), and waiting the whole deadline held a controller step thread for minutes while
   * repairs queued behind it.
   */
  public void transferLeader(long rangeId, String nodeId) {
    onLeader(rangeId, (loc, stub) -> {
      if (!loc.leaderNodeId().equals(nodeId)) {
        stub.transferLeader(TransferLeaderRequest.newBuilder().setHeader(header(loc.range())).setNodeId(nodeId).build());
      }
      return loc.range();
    });
    long end = System.nanoTime() + Math.min(deadline.toNanos(), LEADERSHIP_REPORT_WAIT.toNanos());
    while (locate(rangeId).map(l -> !l.leaderNodeId().equals(nodeId)).orElse(true)) {
      if (System.nanoTime() > end) {
        throw new IllegalStateException("leadership of range " + rangeId + " did not reach " + nodeId);
      }
      pause(2);
    }
  }

  /**
   * Moves the replica of {@code rangeId} on {@code fromNodeId} to the node at {@code toAddress}. A range
   * of at least 3 replicas swaps the two in one configuration change (joint consensus: the range never
   * has 4 voters, 2 of which could share a zone), after moving the leadership off {@code fromNodeId}
   * (a leader cannot replace itself; when the leadership comes back to it before the swap starts, the
   * node refuses, and the leadership is moved off again, up to 3 times). Smaller ranges add the new
   * replica, move the leadership off the old one and remove it.
   */
  public RangeDescriptorProto move(long rangeId, String fromNodeId, String toAddress, long bytesPerSecond) {
    Optional<Located> before = locate(rangeId);
    List<String> others = before.stream().flatMap(l -> l.range().getReplicasList().stream())
        .map(ReplicaProto::getNodeId).filter(id -> !id.equals(fromNodeId)).toList();
    boolean replaceable = before.isPresent() && before.get().range().getReplicasCount() >= 3 && others.size()
        == before.get().range().getReplicasCount() - 1 && addressOf(before.get().range(), toAddress).isEmpty();
    if (!replaceable) {
      return addThenRemove(rangeId, fromNodeId, toAddress, bytesPerSecond);
    }
    for (int attempt = 1; ; attempt++) {
      if (locate(rangeId).map(l -> l.leaderNodeId().equals(fromNodeId)).orElse(false)) {
        transferLeader(rangeId, others.get(0));
      }
      try {
        return onLeader(rangeId, (loc, stub) -> {
          boolean gone = loc.range().getReplicasList().stream().noneMatch(r -> r.getNodeId().equals(fromNodeId));
          if (gone && addressOf(loc.range(), toAddress).isPresent()) {
            return loc.range();
          }
          return stub.withDeadlineAfter(30, TimeUnit.MINUTES).addReplica(AddReplicaRequest.newBuilder()
              .setHeader(header(loc.range())).setAddress(toAddress).setBytesPerSecond(bytesPerSecond)
              .setReplacingNodeId(gone ? "" : fromNodeId).build()).getRange();
        });
      } catch (StatusRuntimeException e) {
        // refused because the leadership is back on the leaving replica: move it off again
        boolean leaderLeaving = RangeKvErrors.fromThrowable(e).map(RangeKvError::hasUnavailable).orElse(false)
            && locate(rangeId).map(l -> l.leaderNodeId().equals(fromNodeId)).orElse(false);
        if (!leaderLeaving || attempt >= 3) {
          throw e;
        }
      }
    }
  }

  private RangeDescriptorProto addThenRemove(long rangeId, String fromNodeId, String toAddress, long bytesPerSecond) {
    RangeDescriptorProto added = addReplica(rangeId, toAddress, bytesPerSecond);
    String toNode = added.getReplicasList().stream().filter(r -> r.getAddress().equals(toAddress))
        .map(ReplicaProto::getNodeId).findFirst()
        .orElseThrow(() -> new IllegalStateException("added replica missing from " + added));
    if (locate(rangeId).map(l -> l.leaderNodeId().equals(fromNodeId)).orElse(false)) {
      // an older replica is caught up; the one just added may still trail, and a node gives a transfer 10 s
      String heir = added.getReplicasList().stream().map(ReplicaProto::getNodeId)
          .filter(id -> !id.equals(fromNodeId) && !id.equals(toNode)).findFirst().orElse(toNode);
      transferLeader(rangeId, heir);
    }
    return removeReplica(rangeId, fromNodeId);
  }

  /**
   * Splits {@code rangeId} at {@code splitKey}, or at the leader's storage midpoint when it is empty;
   * the leader asks the meta range for the child's id. Answers both halves.
   */
  public SplitRangeResponse split(long rangeId, ByteString splitKey) {
    return split(rangeId, splitKey, 0);
  }

  /**
   * Splits as {@link #split(long, ByteString)} does, giving the child {@code childRangeId} (0: granted by
   * the meta range; a cluster without one needs an id from its own counter, e.g. {@code
   * LocalCluster.splitChildId}).
   */
  public SplitRangeResponse split(long rangeId, ByteString splitKey, long childRangeId) {
    return onLeader(rangeId, (loc, stub) -> stub.splitRange(SplitRangeRequest.newBuilder()
        .setHeader(header(loc.range())).setSplitKey(splitKey).setChildRangeId(childRangeId).build()));
  }

  /** Merges {@code leftRangeId} with its right neighbour {@code rightRangeId} (same replica set). */
  public RangeDescriptorProto merge(long leftRangeId, long rightRangeId) {
    return onLeader(leftRangeId, (loc, stub) -> {
      RangeDescriptorProto right = locate(rightRangeId).map(Located::range)
          .orElseThrow(() -> new IllegalStateException("right range " + rightRangeId + " not found"));
      return stub.withDeadlineAfter(2, TimeUnit.MINUTES).mergeRanges(MergeRangesRequest.newBuilder()
          .setHeader(header(loc.range())).setRight(header(right)).build()).getMerged();
    });
  }

  private <T> T onLeader(long rangeId, BiFunction<Located, NodeAdminServiceGrpc.NodeAdminServiceBlockingStub, T> op) {
    long end = System.nanoTime() + deadline.toNanos();
    StatusRuntimeException last = null;
    int attempt = 0;
    while (System.nanoTime() < end) {
      Optional<Located> loc = locate(rangeId);
      if (loc.isEmpty() || loc.get().leaderAddress().isEmpty()) {
        pause(attempt++);
        continue;
      }
      try {
        return op.apply(loc.get(), admin(loc.get().leaderAddress(), Duration.ofMinutes(2)));
      } catch (StatusRuntimeException e) {
        last = e;
        Optional<RangeKvError> typed = RangeKvErrors.fromThrowable(e);
        boolean relocate = typed.isEmpty() || typed.get().hasNotLeader() || typed.get().hasRangeMoved()
            || typed.get().hasRangeNotFound();
        if (!relocate) {
          throw e;
        }
        pause(attempt++);
      }
    }
    throw new IllegalStateException("no leader answered for range " + rangeId + " within " + deadline, last);
  }

  private static Optional<String> addressOf(RangeDescriptorProto d, String address) {
    return d.getReplicasList().stream().map(ReplicaProto::getAddress).filter(address::equals).findFirst();
  }

  private static RangeHeader header(RangeDescriptorProto d) {
    return RangeHeader.newBuilder().setRangeId(d.getRangeId()).setGeneration(d.getGeneration()).build();
  }

  private NodeAdminServiceGrpc.NodeAdminServiceBlockingStub admin(String address, Duration timeout) {
    ManagedChannel ch = channelOf.apply(address);
    return NodeAdminServiceGrpc.newBlockingStub(ch).withDeadlineAfter(timeout.toMillis(), TimeUnit.MILLISECONDS);
  }

  private static void pause(int attempt) {
    try {
      Thread.sleep(Math.min(200, 10L << Math.min(attempt, 5)));
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted", e);
    }
  }

  @Override
  public void close() {
    channels.values().forEach(ManagedChannel::shutdownNow);
  }
}
