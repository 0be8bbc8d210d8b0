package dev.rangekv.server.stats;

import dev.rangekv.core.cluster.TailWrites;
import dev.rangekv.core.cluster.WeightedKey;
import dev.rangekv.core.rangemap.RangeDescriptor;
import dev.rangekv.proto.NodeRecord;
import dev.rangekv.proto.RangeStatsProto;
import dev.rangekv.proto.WeightedKeyProto;
import dev.rangekv.proto.convert.ProtoValues;
import dev.rangekv.proto.meta.HeartbeatRequest;
import dev.rangekv.server.consensus.RangeConsensus;
import dev.rangekv.server.replica.RangeReplica;
import dev.rangekv.server.replica.ReplicaDirectory;
import dev.rangekv.storage.NodeStore;
import dev.rangekv.storage.SpanSize;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Objects;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Builds this node's {@link HeartbeatRequest}: its record, and one {@link RangeStatsProto} per replica
 * it holds. A range it leads carries the load drained from the {@link LoadRecorder} (so each build ends
 * the recorder's interval), approximate bytes and keys from the store, and the append signal; a range
 * it follows carries its descriptor and who leads; a range it holds dormant carries its descriptor and
 * {@code dormant}. Each build costs a size estimate per led range (no
 * scans). Thread-safe (builds are serialised).
 */
public final class HeartbeatBuilder {
  private static final Logger log = LoggerFactory.getLogger(HeartbeatBuilder.class);

  /**
   * Who this node is, as heartbeats report it.
   *
   * @param nodeId the node's id
   * @param address client gRPC host:port
   * @param raftAddress the host:port its Raft peers reach it at
   * @param zone failure domain; empty when zones are not configured
   * @param dataDir where the node's data lives: capacity is its file store's usable space
   * @param httpAddress HTTP host:port of metrics and console; empty when the node has none
   * @param labels node labels beyond the zone, for placement rules
   */
  public record Self(String nodeId, String address, String raftAddress, String zone, Path dataDir, String httpAddress,
      java.util.Map<String, String> labels) {
    /** A node without labels. */
    public Self(String nodeId, String address, String raftAddress, String zone, Path dataDir, String httpAddress) {
      this(nodeId, address, raftAddress, zone, dataDir, httpAddress, java.util.Map.of());
    }

    public Self {
      labels = java.util.Map.copyOf(labels);
      Objects.requireNonNull(httpAddress, "httpAddress");
      Objects.requireNonNull(nodeId, "nodeId");
      Objects.requireNonNull(address, "address");
      Objects.requireNonNull(raftAddress, "raftAddress");
      Objects.requireNonNull(zone, "zone");
      Objects.requireNonNull(dataDir, "dataDir");
    }
  }

  private final Self self;
  private final RangeConsensus consensus;
  private final ReplicaDirectory directory;
  private final NodeStore store;
  private final LoadRecorder recorder;

  public HeartbeatBuilder(Self self, RangeConsensus consensus, ReplicaDirectory directory, NodeStore store, LoadRecorder recorder) {
    this.self = Objects.requireNonNull(self, "self");
    this.consensus = Objects.requireNonNull(consensus, "consensus");
    this.directory = Objects.requireNonNull(directory, "directory");
    this.store = Objects.requireNonNull(store, "store");
    this.recorder = Objects.requireNonNull(recorder, "recorder");
  }

  /**
   * The heartbeat for the interval ending at {@code nowNanos} (a {@code System.nanoTime()} value), whose
   * rates are measured since the previous build (or since the node started).
   *
   * @throws dev.rangekv.storage.StoreException when the store is closed (the node is stopping)
   */
  public synchronized HeartbeatRequest build(long nowNanos) {
    LoadInterval load = recorder.drain(nowNanos);
    HeartbeatRequest.Builder hb = HeartbeatRequest.newBuilder()
        .setIntervalMillis(load.intervalNanos() / 1_000_000);
    int leaders = 0;
    long bytes = 0;
    double qps = 0;
    for (RangeReplica replica : directory.replicas()) {
      Optional<RangeDescriptor> d = replica.descriptor();
      Optional<Leadership> leadership = leadership(replica.rangeId());
      if (d.isEmpty() || leadership.isEmpty()) {
        continue; // pending, or its group closed or is starting: the next heartbeat reports it
      }
      RangeStatsProto.Builder r = RangeStatsProto.newBuilder()
          .setRange(directory.toProto(d.get()))
          .setLeader(leadership.get().leader())
          .setLeaderNodeId(leadership.get().leaderNodeId());
      if (leadership.get().leader()) {
        leaders++;
        measure(r, d.get(), load);
        bytes += r.getBytes();
        qps += r.getReadQps() + r.getWriteQps();
      }
      hb.addRanges(r);
    }
    int dormant = addDormant(hb);
    hb.setNode(NodeRecord.newBuilder()
        .setNodeId(self.nodeId())
        .setAddress(self.address())
        .setRaftAddress(self.raftAddress())
        .setZone(self.zone())
        .putAllLabels(self.labels())
        .setHttpAddress(self.httpAddress())
        .setCapacityBytes(capacity())
        .setReplicaCount(hb.getRangesCount())
        .setLeaderCount(leaders)
        .setDormantCount(dormant)
        .setBytes(bytes)
        .setQps(qps));
    return hb.build();
  }

  /** Adds the ranges this node holds dormant (closed groups: no leader, no load); returns how many. */
  private int addDormant(HeartbeatRequest.Builder hb) {
    int n = 0;
    for (dev.rangekv.storage.RangeLocalState s : store.allRangeStates()) {
      if (directory.replica(s.rangeId()).isPresent() || !s.descriptor().replicas().contains(self.nodeId())
          || dev.rangekv.server.replica.DormancyRecord.dormantAt(store, s.rangeId()).isEmpty()) {
        continue;
      }
      directory.replicaRecord(s.rangeId()); // learns the replicas' addresses (no group registered them)
      hb.addRanges(RangeStatsProto.newBuilder().setRange(directory.toProto(s.descriptor())).setDormant(true));
      n++;
    }
    return n;
  }

  private void measure(RangeStatsProto.Builder r, RangeDescriptor d, LoadInterval load) {
    SpanSize size = store.approximateSize(d.start(), d.end());
    r.setBytes(size.approximateBytes()).setKeys(size.approximateKeys());
    Optional<RangeLoadInterval> measured = load.range(d.rangeId());
    if (measured.isEmpty()) {
      return;
    }
    RangeLoadInterval m = measured.get();
    r.setReadQps(load.rate(m.reads())).setWriteQps(load.rate(m.writes()))
        .setWriteBytesPerSecond(load.rate(m.writeBytes()));
    for (WeightedKey k : m.sampledKeys()) {
      r.addSampledKeys(WeightedKeyProto.newBuilder().setKey(ProtoValues.bytes(k.key())).setWeight(k.weight()));
    }
    TailWrites tail = m.tail();
    r.setTailWrites(tail.writes()).setTailAppends(tail.appends());
    tail.maxWrittenKey().ifPresent(k -> r.setMaxWrittenKey(ProtoValues.bytes(k)));
  }

  private record Leadership(boolean leader, String leaderNodeId) {}

  private Optional<Leadership> leadership(long rangeId) {
    try {
      return consensus.leadership(rangeId).map(l -> new Leadership(l.leader(), l.leaderId()));
    } catch (IllegalStateException e) {
      return Optional.empty(); // the group is starting or closing
    }
  }

  /** Usable bytes of the data directory's file store; 0 (unknown, as the proto allows) when unreadable. */
  private long capacity() {
    try {
      return Files.getFileStore(self.dataDir()).getUsableSpace();
    } catch (IOException e) {
      log.warn("capacity unknown nodeId={} dataDir={} error={}", self.nodeId(), self.dataDir(), e.toString());
      return 0;
    }
  }
}
