package dev.rangekv.meta.controller;


import dev.rangekv.core.cluster.ControllerConfig;
import dev.rangekv.core.cluster.Explanation;
import dev.rangekv.core.cluster.Move;
import dev.rangekv.core.cluster.NodeInfo;
import dev.rangekv.core.cluster.NodeStats;
import dev.rangekv.core.cluster.SplitCause;
import dev.rangekv.core.key.Key;
import dev.rangekv.core.key.KeyCodec;
import dev.rangekv.core.rangemap.RangeDescriptor;
import dev.rangekv.core.split.PreSplitPlan;
import dev.rangekv.core.split.PreSplitPlanner;
import dev.rangekv.meta.state.MetaGroup;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.LongSupplier;
import java.util.function.Supplier;

/**
 * Admin pre-split: first adds replicas to the ranges to split until each has the replication factor
 * (on a cluster just started, the first range has one replica until the controller's repair reaches
 * it, and every child of a split is born on its parent's replicas: split first, and a thousand children
 * each waited for two replica copies), then splits at the given keys (or uniform points of the 8-byte
 * prefix space, {@link KeyCodec#uniformSplitPoints}) in parallel chains, each splitting one range from its
 * last point to its first (each split reported and logged; the chains' new children are born dormant,
 * so no node opens a Raft group for a range until something asks for it), then optionally scatters the
 * resulting ranges with {@link PreSplitPlanner}'s placement: replicas moved so each planned span sits
 * on its planned nodes (a move of a dormant range wakes it first, as every operator step does), and
 * leadership moved to the first of them when the current leader is known (a dormant range has none: it
 * is left to elect where it wakes).
 * All ranges involved stay held until the end, so no tick merges the new empty ranges meanwhile; the
 * splits carry cause {@code PRESPLIT}, which protects them for {@code merge.split-cooldown}. Ends with
 * one {@code "presplit"} event naming the resulting ranges in key order.
 */
final class PreSplit {
  /** The most ranges one uniform pre-split may create. */
  static final int MAX_UNIFORM = 4096;
  /** Splits of one pre-split in flight at once (each on a different range). */
  static final int PARALLEL_SPLITS = 8;
  /**
   * Ranges split at once, each at its points one after another. When every split woke its new child
   * (awake for the fresh-range dormancy period), eight chains made children faster than three nodes on
   * two cores closed them (8,000 threads, splits stopped at 790 of 1,000); the chains' children are now
   * born dormant (see {@link SplitChains#splitAt}).
   */
  static final int CHAINS = 4;

  private final MetaGroup meta;
  private final ControllerConfig config;
  private final StatsBook stats;
  private final AdminOperations ops;
  private final EventRecorder events;
  private final LongSupplier clock;

  PreSplit(MetaGroup meta, ControllerConfig config, StatsBook stats, AdminOperations ops, EventRecorder events,
      LongSupplier clock) {
    this.meta = meta;
    this.config = config;
    this.stats = stats;
    this.ops = ops;
    this.events = events;
    this.clock = clock;
  }

  CompletableFuture<List<RangeDescriptor>> run(List<Key> keys, int uniform, boolean scatter) {
    List<Key> points = points(keys, uniform);
    long now = clock.getAsLong();
    List<NodeStats> live = new ArrayList<>();
    for (NodeInfo n : meta.view().nodes()) {
      NodeStats s = n.stats();
      if (s.isLive(now, config.deadNodeTimeoutMillis())) {
        live.add(s);
      }
    }
    if (scatter && live.isEmpty()) {
      throw new AdminRejectedException("presplit", "no live nodes to scatter the ranges over");
    }
    Optional<PreSplitPlan> plan = scatter
        ? Optional.of(PreSplitPlanner.atKeys(points, live, config.replicationFactor())) : Optional.empty();
    Set<Long> containing = new HashSet<>();
    points.forEach(p -> containing.add(meta.view().lookup(p).rangeId()));
    OperatorQueue.Hold lease = ops.reserve(List.copyOf(containing), "admin presplit");
    Explanation why = Explanation.of("admin pre-split").with("splitPoints", points.size()).build();
    Limiter limiter = new Limiter();
    CompletableFuture<?> chain = fullReplicas(lease, List.copyOf(containing), live)
        .thenCompose(v -> new SplitChains(points, lease, why, limiter).splitAll());
    AtomicInteger moves = new AtomicInteger();
    if (plan.isPresent()) {
      chain = chain.thenCompose(v -> scatter(lease, points, plan.get(), moves, limiter));
    }
    CompletableFuture<List<RangeDescriptor>> done = chain.thenCompose(v -> {
      List<RangeDescriptor> result = held(lease);
      Explanation summary = Explanation.of("admin pre-split").with("splitPoints", points.size())
          .with("ranges", result.size()).with("scatter", scatter ? 1 : 0).with("moves", moves.get()).build();
      return events.append(List.of(EventRecorder.event("presplit",
              result.stream().map(RangeDescriptor::rangeId).toList(), summary,
              "pre-split at " + points.size() + " points into " + result.size() + " ranges"
                  + (scatter ? ", scattered with " + moves.get() + " moves" : ""), clock.getAsLong())))
          .thenApply(x -> result);
    });
    return ops.released(lease, done);
  }

  /**
   * Splits at the points in {@link #CHAINS} chains: the points are first bisected into that
   * many chunks (the middle point first, then both halves at once: each half's points lie in a different
   * range once the middle split is done), then each chunk's range is split at its points from the last
   * to the first, all chunks at once. A split keeps the range's id and left part and gives the right part
   * to a new range, so every split of a chain acts on the same range, awake with a settled leader: split
   * in any other order, each split met a child whose first election had not ended ("not leader",
   * retried 2 s later), and a child that waited its turn longer than the fresh-range dormancy period
   * (10 s) had closed its group and had to be woken first (BENCHMARKS.md, "Pre-split into 1,000 ranges
   * right after a start"). A sequential pre-split into n ranges took n - 1 split latencies; this takes
   * about log2(CHAINS) plus (n - 1) / CHAINS.
   */
  private final class SplitChains {
    private final List<Key> points;
    private final OperatorQueue.Hold lease;
    private final Explanation why;
    private final Limiter limiter;

    SplitChains(List<Key> points, OperatorQueue.Hold lease, Explanation why, Limiter limiter) {
      this.points = points;
      this.lease = lease;
      this.why = why;
      this.limiter = limiter;
    }

    /** Splits at every point. */
    CompletableFuture<Void> splitAll() {
      return chunks(0, points.size(), CHAINS);
    }

    /** Splits at points[from, to), which all lie in one range once the splits around them are done, in {@code chains} chains. */
    private CompletableFuture<Void> chunks(int from, int to, int chains) {
      if (from >= to) {
        return CompletableFuture.completedFuture(null);
      }
      if (chains <= 1) {
        return rightToLeft(from, to - 1);
      }
      int mid = (from + to) >>> 1;
      // this split's right half is the range the next chain splits: born awake, with a leader ready
      return limiter.limited(() -> splitAt(points.get(mid), false))
          .thenCompose(v -> CompletableFuture.allOf(chunks(from, mid, chains / 2), chunks(mid + 1, to, chains - chains / 2)));
    }

    /** Splits at points[i], then at points[i - 1] and so on down to points[from], one after another. */
    private CompletableFuture<Void> rightToLeft(int from, int i) {
      if (i < from) {
        return CompletableFuture.completedFuture(null);
      }
      return limiter.limited(() -> splitAt(points.get(i), true)).thenCompose(v -> rightToLeft(from, i - 1));
    }

    /**
     * Splits at {@code p}; with {@code childDormant} the right half, which this pre-split splits no
     * further, is born dormant: no replica opens its group until a request or an operator step needs it.
     * Born awake, each of a thousand children opened a group on all three nodes (~4 threads each per
     * node), idled 10 s and closed again: load 60-90 on two cores, 3m27s for 1,000 ranges
     * (BENCHMARKS.md, "Pre-split into 1,000 ranges right after a start").
     */
    private CompletableFuture<?> splitAt(Key p, boolean childDormant) {
      RangeDescriptor d = meta.view().lookup(p);
      if (d.start().equals(p)) {
        return CompletableFuture.completedFuture(null); // already a boundary
      }
      return ops.splitOp(lease, d.rangeId(), Optional.of(p), SplitCause.PRESPLIT, childDormant, why);
    }
  }

  /**
   * At most {@link #PARALLEL_SPLITS} operators of one pre-split in flight at once, each on a different
   * range; the rest wait in arrival order.
   */
  private static final class Limiter {
    private final ArrayDeque<Runnable> queued = new ArrayDeque<>();
    private int inFlight;

    /** Runs {@code call} once fewer than PARALLEL_SPLITS calls are in flight (in arrival order). */
    CompletableFuture<Void> limited(Supplier<CompletableFuture<?>> call) {
      CompletableFuture<Void> out = new CompletableFuture<>();
      Runnable start = () -> {
        CompletableFuture<?> f;
        try {
          f = call.get();
        } catch (RuntimeException e) {
          f = CompletableFuture.failedFuture(e);
        }
        f.whenComplete((v, err) -> {
          Runnable next;
          synchronized (this) {
            next = queued.poll();
            if (next == null) {
              inFlight--;
            }
          }
          if (next != null) {
            next.run(); // the finished call's slot passes to the next one
          }
          if (err != null) {
            out.completeExceptionally(err);
          } else {
            out.complete(null);
          }
        });
      };
      boolean now;
      synchronized (this) {
        now = inFlight < PARALLEL_SPLITS;
        if (now) {
          inFlight++;
        } else {
          queued.add(start);
        }
      }
      if (now) {
        start.run();
      }
      return out;
    }
  }

  private static List<Key> points(List<Key> keys, int uniform) {
    if (keys.isEmpty() == (uniform == 0)) {
      throw new AdminRejectedException("presplit", "give either split_keys or uniform (not both, not neither)");
    }
    if (uniform < 0 || uniform > MAX_UNIFORM) {
      throw new AdminRejectedException("presplit", "uniform must be in [1, " + MAX_UNIFORM + "], got "
          + Integer.toUnsignedString(uniform));
    }
    TreeSet<Key> out = new TreeSet<>();
    if (uniform > 0) {
      out.addAll(KeyCodec.uniformSplitPoints(uniform));
    } else {
      out.addAll(keys);
      out.remove(Key.EMPTY);
    }
    if (out.isEmpty()) {
      throw new AdminRejectedException("presplit", "no split points (uniform=1, or only the empty key)");
    }
    return List.copyOf(out);
  }

  /** The leased ranges as the meta view has them now, in key order. */
  private List<RangeDescriptor> held(OperatorQueue.Hold lease) {
    Set<Long> ids = lease.ids();
    List<RangeDescriptor> out = new ArrayList<>();
    for (RangeDescriptor d : meta.view().ranges()) {
      if (ids.contains(d.rangeId())) {
        out.add(d);
      }
    }
    out.sort(Comparator.comparing(RangeDescriptor::start));
    return out;
  }

  /**
   * Adds replicas to each range in {@code ids} up to the replication factor on live nodes ({@link
   * PreSplitPlanner#missingReplicas}), one add at a time per range, the ranges in parallel.
   */
  private CompletableFuture<Void> fullReplicas(OperatorQueue.Hold lease, List<Long> ids, List<NodeStats> live) {
    List<CompletableFuture<?>> all = new ArrayList<>();
    for (long id : ids) {
      List<String> current = meta.view().range(id).map(RangeDescriptor::replicas).orElse(List.of());
      CompletableFuture<?> chain = CompletableFuture.completedFuture(null);
      for (String node : PreSplitPlanner.missingReplicas(current, live, config.replicationFactor())) {
        Explanation why = Explanation.of("pre-split: every child starts with the replication factor")
            .with("replicas", current.size()).build();
        chain = chain.thenCompose(v -> ops.addReplicaOp(lease, id, node, why));
      }
      all.add(chain);
    }
    return CompletableFuture.allOf(all.toArray(CompletableFuture[]::new));
  }

  /**
   * Moves each range's replicas and then its leadership to the plan's nodes: one range's steps in
   * order, different ranges in parallel under {@code limiter} (one after another, a thousand leader
   * transfers took minutes).
   */
  private CompletableFuture<?> scatter(OperatorQueue.Hold lease, List<Key> points, PreSplitPlan plan, AtomicInteger moves,
      Limiter limiter) {
    List<CompletableFuture<?>> all = new ArrayList<>();
    for (RangeDescriptor d : held(lease)) {
      Key start = d.start();
      int span = (int) points.stream().filter(p -> p.compareTo(start) <= 0).count();
      List<String> wanted = plan.placements().get(span);
      all.add(limiter.limited(() -> scatterOne(lease, d, span, wanted, moves)));
    }
    return CompletableFuture.allOf(all.toArray(CompletableFuture[]::new));
  }

  private CompletableFuture<?> scatterOne(OperatorQueue.Hold lease, RangeDescriptor d, int span, List<String> wanted,
      AtomicInteger moves) {
    List<String> current = d.replicas();
    List<String> from = new ArrayList<>(current);
    from.removeAll(wanted);
    List<String> to = new ArrayList<>(wanted);
    to.removeAll(current);
    long id = d.rangeId();
    CompletableFuture<?> chain = CompletableFuture.completedFuture(null);
    for (int i = 0; i < Math.min(from.size(), to.size()); i++) {
      Move m = Move.of(id, from.get(i), to.get(i), Explanation.of("pre-split scatter").with("span", span).build());
      chain = chain.thenCompose(v -> {
        moves.incrementAndGet();
        return ops.moveOp(lease, m);
      });
    }
    return chain.thenCompose(v -> {
      String leader = stats.leaderReport(id).map(StatsBook.LeaderReport::nodeId).orElse("");
      String first = wanted.get(0);
      List<String> now = meta.view().range(id).map(RangeDescriptor::replicas).orElse(List.of());
      if (leader.equals(first) || !now.contains(leader) || !now.contains(first)) {
        return CompletableFuture.completedFuture(null);
      }
      return ops.transferOp(lease, id, leader, first, Explanation.of("pre-split scatter: leader").build());
    });
  }
}
