package dev.rangekv.bench.multiraft;

import io.microraft.Ordered;
import io.microraft.RaftConfig;
import io.microraft.RaftEndpoint;
import io.microraft.RaftNode;
import io.microraft.executor.impl.DefaultRaftNodeExecutor;
import io.microraft.model.message.RaftMessage;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.rocksdb.Options;
import org.rocksdb.RocksDB;
import org.rocksdb.RocksDBException;
import org.rocksdb.Statistics;
import org.rocksdb.TickerType;
import org.rocksdb.WriteOptions;

/**
 * One spike node: a RocksDB of its own (synced writes) and a replica of every group, run by the chosen
 * {@link Runtime}. On the node-wide runtime group {@code g} is pinned to stripe {@code g % stripes}.
 */
final class SpikeNode {
  static final int STRIPES = 2;

  private final int id;
  private final Runtime runtime;
  private final Statistics statistics = new Statistics();
  private final Options options;
  private final RocksDB db;
  private final WriteOptions sync = new WriteOptions().setSync(true);
  private final WriteOptions noSync = new WriteOptions();
  private final List<Stripe> stripes = new ArrayList<>();
  private final List<DefaultRaftNodeExecutor> executors = new ArrayList<>();
  private final RaftNode[] replicas;
  final AtomicLong directMessages = new AtomicLong();
  final AtomicLong unsyncedReplies = new AtomicLong();

  SpikeNode(int id, Runtime runtime, int groups, Path dir, int nodes, Stripe.Network network,
      boolean releaseBeforeSync) throws RocksDBException {
    this.id = id;
    this.runtime = runtime;
    this.options = new Options().setCreateIfMissing(true).setStatistics(statistics);
    this.db = RocksDB.open(options, dir.toString());
    this.replicas = new RaftNode[groups];
    if (runtime.nodeWide()) {
      for (int s = 0; s < STRIPES; s++) {
        stripes.add(new Stripe("n" + id + "-stripe-" + s, db, sync, nodes, network,
            runtime == Runtime.NODE_WIDE_PIPELINED, releaseBeforeSync));
      }
    }
  }

  int id() {
    return id;
  }

  /** Builds this node's replica of every group; {@code direct} carries per-group messages. */
  void build(int nodes, RaftConfig config, GroupTransport.Direct direct) {
    List<RaftEndpoint> members = new ArrayList<>();
    for (int n = 0; n < nodes; n++) {
      members.add(new NodeEndpoint(n));
    }
    for (int g = 0; g < replicas.length; g++) {
      RaftNode.RaftNodeBuilder builder = RaftNode.newBuilder().setGroupId(g).setLocalEndpoint(new NodeEndpoint(id))
          .setInitialGroupMembers(members).setConfig(config);
      if (runtime.nodeWide()) {
        Stripe stripe = stripes.get(g % STRIPES);
        GroupStore store = new GroupStore(g, stripe);
        builder.setExecutor(new StripeExecutor(stripe, store)).setStore(store)
            .setTransport(GroupTransport.onStripe(store, stripe))
            .setStateMachine(new KvStateMachine((k, v) -> stripe.batch().put(k, v)));
      } else {
        DefaultRaftNodeExecutor executor = new DefaultRaftNodeExecutor();
        executors.add(executor);
        GroupStore store = new GroupStore(g, new OwnBatch(db, sync));
        builder.setExecutor(executor).setStore(store)
            .setTransport(GroupTransport.direct(store, direct, directMessages, unsyncedReplies))
            .setStateMachine(new KvStateMachine((k, v) -> db.put(noSync, k, v)));
      }
      replicas[g] = builder.build();
    }
  }

  /** Starts the stripes and the replicas; every node of the cluster must have been built. */
  void start() {
    stripes.forEach(Stripe::start);
    for (RaftNode replica : replicas) {
      replica.start();
    }
  }

  RaftNode replica(int group) {
    return replicas[group];
  }

  /**
   * Replicates {@code op} through this node's replica of {@code group}. On the strict node-wide runtime
   * the answer waits for the sync of the cycle in which the entry was applied; elsewhere it comes with
   * the apply, since a commit there is counted from synced logs only.
   */
  CompletableFuture<Ordered<Object>> replicate(int group, PutOp op) {
    CompletableFuture<Ordered<Object>> applied = replicas[group].replicate(op);
    if (runtime != Runtime.NODE_WIDE) {
      return applied;
    }
    Stripe stripe = stripes.get(group % STRIPES);
    CompletableFuture<Ordered<Object>> acked = new CompletableFuture<>();
    applied.whenComplete((result, failure) -> stripe.afterSync(() -> {
      if (failure != null) {
        acked.completeExceptionally(failure);
      } else {
        acked.complete(result);
      }
    }));
    return acked;
  }

  /** An envelope from a peer: every message for one stripe is handled in one task of that stripe. */
  void deliver(List<RaftMessage> envelope) {
    List<List<RaftMessage>> byStripe = new ArrayList<>();
    for (int s = 0; s < STRIPES; s++) {
      byStripe.add(new ArrayList<>());
    }
    for (RaftMessage message : envelope) {
      byStripe.get((Integer) message.getGroupId() % STRIPES).add(message);
    }
    for (int s = 0; s < STRIPES; s++) {
      List<RaftMessage> mine = byStripe.get(s);
      if (!mine.isEmpty()) {
        stripes.get(s).submit(() -> mine.forEach(m -> replicas[(Integer) m.getGroupId()].handle(m)));
      }
    }
  }

  void deliverDirect(RaftMessage message) {
    replicas[(Integer) message.getGroupId()].handle(message);
  }

  NodeCounters counters() {
    long cycles = 0;
    long syncs = 0;
    long envelopes = 0;
    long messages = directMessages.get();
    long unsynced = unsyncedReplies.get();
    long failures = 0;
    for (Stripe s : stripes) {
      cycles += s.cycles.get();
      syncs += s.syncs.get();
      envelopes += s.envelopes.get();
      messages += s.messages.get();
      unsynced += s.unsyncedReleases.get();
      failures += s.taskFailures.get();
    }
    return new NodeCounters(statistics.getTickerCount(TickerType.WAL_FILE_SYNCED), cycles, syncs, envelopes,
        messages, unsynced, failures);
  }

  /** Stops every thread of the node without a last sync (as a crash would), then closes the store. */
  void crash() throws InterruptedException {
    for (Stripe s : stripes) {
      s.stop();
    }
    for (DefaultRaftNodeExecutor e : executors) {
      e.getExecutor().shutdownNow();
    }
    for (DefaultRaftNodeExecutor e : executors) {
      e.getExecutor().awaitTermination(10, TimeUnit.SECONDS);
    }
    db.close();
    options.close();
    statistics.close();
    sync.close();
    noSync.close();
  }
}
