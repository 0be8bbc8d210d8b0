package dev.rangekv.bench.partition;

import dev.rangekv.core.key.Key;
import dev.rangekv.sim.partition.BoundedLoad;
import dev.rangekv.sim.partition.Directory;
import dev.rangekv.sim.partition.Hash64;
import dev.rangekv.sim.partition.HashRing;
import dev.rangekv.sim.partition.JumpHash;
import dev.rangekv.sim.partition.Maglev;
import dev.rangekv.sim.partition.ModN;
import dev.rangekv.sim.partition.Node;
import dev.rangekv.sim.partition.Partitioner;
import dev.rangekv.sim.partition.PlacementSimulation;
import dev.rangekv.sim.partition.Rendezvous;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;

/**
 * Cost of one {@code owner(key)} lookup per scheme at 10 and 1,000 nodes, keys {@code user:{i}},
 * xxHash64. Each invocation looks up the next of 4,096 pre-built keys, so the key's hash is not
 * cached between calls.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
public class PartitionerLookupBenchmark {
  @Param({"modN", "ring100", "rendezvous", "jump", "maglev", "bounded", "directory"})
  public String scheme;

  @Param({"10", "1000"})
  public int nodes;

  private static final int KEYS = 4096;
  private Key[] keys;
  private Partitioner partitioner;
  private int next;

  @Setup
  public void setUp() {
    List<Key> keyList = PlacementSimulation.keys("user:{i}", 0, KEYS);
    keys = keyList.toArray(new Key[0]);
    List<Node> ns = PlacementSimulation.numberedNodes(nodes);
    Hash64 h = Hash64.XXH64;
    partitioner = switch (scheme) {
      case "modN" -> new ModN(ns, h);
      case "ring100" -> new HashRing(ns, 100, h);
      case "rendezvous" -> new Rendezvous(ns, h);
      case "jump" -> new JumpHash(ns, h);
      case "maglev" -> new Maglev(ns, Maglev.DEFAULT_TABLE_SIZE, h);
      case "bounded" -> new BoundedLoad(ns, 100, 1.10, keyList, h);
      case "directory" -> directory(keyList, ns, h);
      default -> throw new IllegalArgumentException("unknown scheme=" + scheme);
    };
  }

  /** A directory pinning every 16th key, in front of jump hash. */
  private static Partitioner directory(List<Key> keyList, List<Node> ns, Hash64 h) {
    Map<Key, Node> pinned = new HashMap<>();
    for (int i = 0; i < keyList.size(); i += 16) {
      pinned.put(keyList.get(i), ns.get(i % ns.size()));
    }
    return new Directory(pinned, new JumpHash(ns, h));
  }

  @Benchmark
  public Node lookup() {
    Key k = keys[next];
    next = (next + 1) & (KEYS - 1);
    return partitioner.owner(k);
  }
}
