package dev.rangekv.cli.sim;

import dev.rangekv.core.key.Key;
import dev.rangekv.sim.partition.Hash64;
import dev.rangekv.sim.partition.Node;
import dev.rangekv.sim.partition.Partitioner;
import dev.rangekv.sim.partition.PlacementSimulation;
import dev.rangekv.sim.partition.PlacementSimulation.Churn;
import dev.rangekv.sim.partition.RangeSimulation;
import dev.rangekv.sim.partition.Scheme;
import dev.rangekv.sim.partition.SkewSimulation;
import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.List;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code rangekv sim placement}: seed 004's experiment for every partitioning scheme (churn mode),
 * the hot-key experiment (skew mode) and range partitioning under inserts (range mode).
 */
@Command(
    name = "placement",
    mixinStandardHelpOptions = true,
    description = {
        "Places keys on nodes with each partitioning scheme and measures what a membership change moves.",
        "Modes: churn (default; add a node, or --remove one), skew (hot keys and salting), range (range "
            + "partitioning under monotonic or uniform inserts), replicas (how often distinct zones change the "
            + "replica set)."})
public final class PlacementCommand implements Runnable {
  @CommandLine.Spec
  CommandLine.Model.CommandSpec spec;

  @Option(names = "--mode", defaultValue = "churn",
      description = "churn, skew, range or replicas (default: ${DEFAULT-VALUE})")
  String mode;

  @Option(names = {"-k", "--keys"}, defaultValue = "100000", description = "number of keys / inserts K")
  int keys;

  @Option(names = {"-n", "--nodes"}, defaultValue = "10", description = "number of nodes N, named 0..N-1")
  int nodes;

  @Option(names = "--add", defaultValue = "1", description = "nodes to add, named N.. (default: ${DEFAULT-VALUE})")
  int add;

  @Option(names = "--first-index", defaultValue = "0", description = "first {i} of the key pattern (seed 003 uses 1)")
  long firstIndex;

  @Option(names = "--remove", description = "remove this node instead of adding nodes")
  String remove;

  @Option(names = "--vnodes", split = ",", defaultValue = "1,10,100,1000",
      description = "ring points per node, one ring row each (default: ${DEFAULT-VALUE})")
  List<Integer> vnodes;

  @Option(names = "--c", defaultValue = "1.10", description = "bounded-load cap factor c (default: ${DEFAULT-VALUE})")
  double loadFactor;

  @Option(names = "--bounded-vnodes", defaultValue = "100", description = "ring points under bounded load")
  int boundedVnodes;

  @Option(names = "--maglev-size", defaultValue = "65537", description = "Maglev table size, a prime")
  int maglevSize;

  @Option(names = "--hash", defaultValue = "blake2b64",
      description = "xxh64, blake2b64 (seed 004) or md5 (seed 003); default: ${DEFAULT-VALUE}")
  String hashName;

  @Option(names = "--key-format", defaultValue = "user:{i}",
      description = "key pattern; {i} runs from --first-index over K values (default: ${DEFAULT-VALUE})")
  String keyFormat;

  @Option(names = "--hot-share", defaultValue = "0.01", description = "skew: share of keys that are hot")
  double hotShare;

  @Option(names = "--hot-multiplier", defaultValue = "100", description = "skew: traffic multiple of a hot key")
  double hotMultiplier;

  @Option(names = "--salt", defaultValue = "4", description = "skew: sub-keys per salted hot key")
  int salt;

  @Option(names = "--ranges", defaultValue = "0", description = "range: pre-split ranges (default 4 x nodes)")
  int preSplitRanges;

  @Option(names = "--split-keys", defaultValue = "0", description = "range: split threshold (default K / 50)")
  int splitKeys;

  @Option(names = "--window", defaultValue = "0", description = "range: inserts per window (default K / 100)")
  int window;

  @Option(names = "--replicas", defaultValue = "3", description = "replicas: replicas per key")
  int replicaCount;

  @Option(names = "--zones", defaultValue = "3", description = "replicas: zones, nodes assigned round-robin")
  int zones;

  @Override
  public void run() {
    if (keys < 1 || nodes < 1) {
      throw new CommandLine.ParameterException(spec.commandLine(), "--keys and --nodes must be >= 1");
    }
    PrintWriter out = spec.commandLine().getOut();
    switch (mode) {
      case "churn" -> churn(out);
      case "skew" -> skew(out);
      case "range" -> range(out);
      case "replicas" -> replicas(out);
      default -> throw new CommandLine.ParameterException(spec.commandLine(),
          "--mode must be churn, skew, range or replicas, got " + mode);
    }
    out.flush();
  }

  private Hash64 hash() {
    try {
      return Hash64.named(hashName);
    } catch (IllegalArgumentException e) {
      CommandLine.ParameterException pe = new CommandLine.ParameterException(spec.commandLine(), e.getMessage());
      pe.initCause(e);
      throw pe;
    }
  }

  private List<Scheme> schemes(Hash64 hash) {
    List<Scheme> s = new ArrayList<>();
    s.add(Scheme.modN(hash));
    vnodes.forEach(v -> s.add(Scheme.ring(v, hash)));
    s.add(Scheme.rendezvous(hash));
    s.add(Scheme.jump(hash));
    s.add(Scheme.boundedLoad(boundedVnodes, loadFactor, hash));
    s.add(Scheme.maglev(maglevSize, hash));
    return s;
  }

  private void churn(PrintWriter out) {
    Hash64 hash = hash();
    List<Key> keyList = PlacementSimulation.keys(keyFormat, firstIndex, keys);
    List<Node> before = PlacementSimulation.numberedNodes(nodes);
    List<Node> after = new ArrayList<>(before);
    String change;
    if (remove == null) {
      if (add < 1) {
        throw new CommandLine.ParameterException(spec.commandLine(), "--add must be >= 1");
      }
      for (int i = 0; i < add; i++) {
        after.add(Node.of(Integer.toString(nodes + i)));
      }
      change = add == 1 ? "then node " + nodes + " joins"
          : "then nodes " + nodes + ".." + (nodes + add - 1) + " join";
    } else {
      if (!after.removeIf(n -> n.name().equals(remove)) || after.isEmpty()) {
        throw new CommandLine.ParameterException(spec.commandLine(),
            "--remove must name one of the nodes 0.." + (nodes - 1) + " and leave at least one");
      }
      change = "then node " + remove + " leaves";
    }
    out.printf("%,d keys (%s); %d nodes, %s. Ideal share moved: %.1f%%. Hash: %s%n", keys, keyFormat, nodes,
        change, 100 * Churn.idealShare(before.size(), after.size()), hashName);
    out.printf("%-30s%8s  %13s  %14s  %14s  %10s%n", "scheme", "moved",
        remove == null ? "all to new?" : "from removed?",
        "max/mean (" + before.size() + ")", "max/mean (" + after.size() + ")", "lookup ns");
    for (Scheme s : schemes(hash)) {
      // Jump hash numbers its buckets, so only the last node can leave; say so instead of a wrong row.
      if (remove != null && s.name().startsWith("jump") && !remove.equals(Integer.toString(nodes - 1))) {
        out.printf("%-30s%8s  %13s  %14s  %14s  %10s%n", s.name(), "n/a", "-", "-", "-", "-");
        continue;
      }
      Churn c = PlacementSimulation.churn(s, keyList, before, after);
      double ns = lookupNanos(s.build(after, keyList), keyList);
      out.printf("%-30s%7.1f%%  %13s  %14.2f  %14.2f  %10.0f%n", s.name(), 100 * c.movedShare(),
          c.minimal() ? "yes" : "no", c.peakBefore(), c.peakAfter(), ns);
    }
  }

  /**
   * Wall-clock nanoseconds per lookup: the fastest of three timed passes over up to 20,000 keys,
   * after three warm-up passes so the JIT has compiled the lookup. A rough figure; the JMH
   * benchmarks in rangekv-bench are the careful one.
   */
  private static double lookupNanos(Partitioner p, List<Key> keyList) {
    int n = Math.min(keyList.size(), 20_000);
    long sink = 0;
    long best = Long.MAX_VALUE;
    for (int pass = 0; pass < 6; pass++) {
      long t0 = System.nanoTime();
      for (int i = 0; i < n; i++) {
        sink += p.owner(keyList.get(i)).weight();
      }
      long elapsed = System.nanoTime() - t0;
      if (pass >= 3) {
        best = Math.min(best, elapsed);
      }
    }
    if (sink == 0) { // every weight is >= 1; the check keeps the loop from being optimised away
      throw new IllegalStateException("lookups returned no nodes");
    }
    return (double) best / n;
  }

  private void skew(PrintWriter out) {
    Hash64 hash = hash();
    List<Key> keyList = PlacementSimulation.keys(keyFormat, firstIndex, keys);
    List<Node> ns = PlacementSimulation.numberedNodes(nodes);
    int hot = (int) Math.ceil(hotShare * keys);
    SkewSimulation.Config cfg = new SkewSimulation.Config(hot, hotMultiplier, salt);
    out.printf("%,d keys on %d nodes; the first %,d keys get %.0fx the traffic; salting splits each into %d sub-keys"
        + ". Hash: %s%n", keys, nodes, hot, hotMultiplier, salt, hashName);
    out.printf("%-30s%16s  %16s  %16s  %14s%n", "scheme", "max keys/mean", "max load/mean", "salted load/mean",
        "hot key nodes");
    for (Scheme s : schemes(hash)) {
      SkewSimulation.Result r = SkewSimulation.run(s, ns, keyList, cfg);
      out.printf("%-30s%16.2f  %16.2f  %16.2f  %14d%n", s.name(), r.busiestKeysShare() * nodes, r.peakLoad(),
          r.peakLoadSalted(), r.hotKeyNodesSalted());
    }
  }

  private void range(PrintWriter out) {
    int ranges = preSplitRanges > 0 ? preSplitRanges : 4 * nodes;
    int split = splitKeys > 0 ? splitKeys : Math.max(2, keys / 50);
    int win = window > 0 ? window : Math.max(1, keys / 100);
    RangeSimulation.Config cfg = new RangeSimulation.Config(keys, nodes, ranges, split, win);
    out.printf("%,d inserts on %d nodes; pre-split into %d ranges, or size splits above %,d keys; windows of %,d"
        + " inserts%n", keys, nodes, ranges, split, win);
    out.printf("%-12s%-11s%8s  %18s  %18s  %18s  %14s%n", "layout", "inserts", "ranges", "ranges written last",
        "busiest node last", "busiest node avg", "total max/mean");
    for (RangeSimulation.Layout layout : RangeSimulation.Layout.values()) {
      for (RangeSimulation.Inserts order : RangeSimulation.Inserts.values()) {
        RangeSimulation.Result r = RangeSimulation.run(layout, order, cfg);
        out.printf("%-12s%-11s%8d  %18d  %17.0f%%  %17.0f%%  %14.2f%n", layout.name().toLowerCase().replace('_', '-'),
            order.name().toLowerCase(), r.ranges(), r.rangesWrittenLastWindow(), 100 * r.nodeShareLastWindow(),
            100 * r.meanWindowNodeShare(), r.peakTotal());
      }
    }
  }

  private void replicas(PrintWriter out) {
    if (replicaCount < 1 || zones < 1) {
      throw new CommandLine.ParameterException(spec.commandLine(), "--replicas and --zones must be >= 1");
    }
    Hash64 hash = hash();
    List<Key> keyList = PlacementSimulation.keys(keyFormat, firstIndex, keys);
    List<Node> ns = PlacementSimulation.zonedNodes(nodes, zones);
    out.printf("%,d keys on %d nodes in %d zones (round-robin); %d replicas per key. Hash: %s%n", keys, nodes, zones,
        replicaCount, hashName);
    out.printf("%-30s%28s%n", "scheme", "changed by distinct zones");
    for (Scheme s : schemes(hash)) {
      double share = PlacementSimulation.zoneConstraintChangeShare(s.build(ns, keyList), keyList, replicaCount);
      out.printf("%-30s%27.1f%%%n", s.name(), 100 * share);
    }
  }
}
