package dev.rangekv.sim.partition;

import static org.assertj.core.api.Assertions.assertThat;

import dev.rangekv.core.key.Key;
import dev.rangekv.testkit.Gen;
import dev.rangekv.testkit.Property;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Seeded properties of the partitioners against brute-force models. Every property runs 1000
 * cases; sizes (nodes, keys) grow over the run.
 */
class PartitionerPropertyTest {
  private static final List<Hash64> HASHES = List.of(Hash64.XXH64, Hash64.BLAKE2B_64, Hash64.MD5_64);

  private static List<Key> randomKeys(Gen g, int n) {
    return g.listOf(n, () -> Key.of(g.bytes(1, 12)));
  }

  private static List<Node> nodes(Gen g, int n, boolean weighted) {
    List<Node> out = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      out.add(new Node("n" + i + "-" + g.nextInt(1000), weighted ? g.between(1, 4) : 1, "z" + g.nextInt(3)));
    }
    return out;
  }

  @Test
  void rendezvous_ownerIsTheHighestScore_andAddingOrRemovingMovesExactlyTheKeysThatMust() {
    Property.named("rendezvous minimal moves").cases(1000).sizes(1, 40).check(g -> {
      Hash64 h = g.pick(HASHES);
      boolean weighted = g.nextBoolean();
      List<Node> before = nodes(g, g.size(), weighted);
      Node added = new Node("new-" + g.nextInt(1000), weighted ? g.between(1, 4) : 1, "");
      List<Node> after = new ArrayList<>(before);
      after.add(g.nextInt(after.size() + 1), added);
      Rendezvous rb = new Rendezvous(before, h);
      Rendezvous ra = new Rendezvous(after, h);
      for (Key k : randomKeys(g, 50)) {
        Node ob = rb.owner(k);
        Node oa = ra.owner(k);
        if (!weighted) {
          assertThat(ob).isEqualTo(bruteForceHrw(before, k, h));
        }
        // Adding: a key moves iff the new node wins it. Removing (after -> before) is the reverse.
        assertThat(!ob.equals(oa)).isEqualTo(oa.equals(added));
        assertThat(rb.candidates(k).next()).isEqualTo(ob);
      }
    });
  }

  private static Node bruteForceHrw(List<Node> nodes, Key k, Hash64 h) {
    Node best = null;
    long bestScore = 0;
    for (Node n : nodes) {
      long s = h.hash(HashInput.join(HashInput.text(n.name() + "|"), k));
      if (best == null || Long.compareUnsigned(s, bestScore) > 0) {
        best = n;
        bestScore = s;
      }
    }
    return best;
  }

  @Test
  void jump_growingOrShrinkingAtTheEnd_movesExactlyTheKeysOfTheLastBucket() {
    Property.named("jump minimal moves").cases(1000).sizes(1, 200).check(g -> {
      int n = g.size();
      for (int i = 0; i < 100; i++) {
        long key = g.nextLong();
        int b = JumpHash.bucket(key, n);
        int b1 = JumpHash.bucket(key, n + 1);
        assertThat(b).isBetween(0, n - 1);
        assertThat(b != b1).isEqualTo(b1 == n);
      }
    });
  }

  @Test
  void ring_ownerIsTheNextPointClockwise_andMovesGoOnlyToTheNewNode() {
    Property.named("ring moves only to the new node").cases(1000).sizes(1, 25).check(g -> {
      Hash64 h = g.pick(HASHES);
      int vnodes = g.between(1, 10);
      List<Node> before = nodes(g, g.size(), g.nextBoolean());
      Node added = new Node("new-" + g.nextInt(1000), g.between(1, 3), "");
      List<Node> after = new ArrayList<>(before);
      after.add(added);
      HashRing rb = new HashRing(before, vnodes, h);
      HashRing ra = new HashRing(after, vnodes, h);
      List<Point> model = points(before, vnodes, h);
      for (Key k : randomKeys(g, 50)) {
        Node ob = rb.owner(k);
        Node oa = ra.owner(k);
        assertThat(ob).isEqualTo(bruteForceRing(model, k, h));
        if (!ob.equals(oa)) {
          assertThat(oa).isEqualTo(added);
        }
      }
    });
  }

  /** A ring point of the brute-force model: its hash and its node. */
  private record Point(long hash, Node node) {}

  private static List<Point> points(List<Node> nodes, int vnodes, Hash64 h) {
    List<Point> out = new ArrayList<>();
    for (Node n : nodes) {
      for (int v = 0; v < vnodes * n.weight(); v++) {
        out.add(new Point(h.hash(n.name() + "#" + v), n));
      }
    }
    return out;
  }

  /** Linear scan: the point with the smallest unsigned hash above the key's, else the smallest. */
  private static Node bruteForceRing(List<Point> points, Key k, Hash64 h) {
    long kh = h.hash(k);
    Point above = null;
    Point lowest = null;
    for (Point p : points) {
      if (lowest == null || before(p, lowest)) {
        lowest = p;
      }
      if (Long.compareUnsigned(p.hash(), kh) > 0 && (above == null || before(p, above))) {
        above = p;
      }
    }
    return (above != null ? above : lowest).node();
  }

  /** Ring order: unsigned hash, then node name (Python's sort of (hash, name) tuples). */
  private static boolean before(Point a, Point b) {
    int c = Long.compareUnsigned(a.hash(), b.hash());
    return c < 0 || (c == 0 && a.node().name().compareTo(b.node().name()) < 0);
  }

  @Test
  void boundedLoad_neverExceedsItsCap_andPlacesEveryKey() {
    Property.named("bounded load cap").cases(1000).sizes(1, 20).check(g -> {
      List<Node> ns = nodes(g, g.size(), g.nextBoolean());
      double c = 1.0 + g.nextInt(50) / 100.0;
      List<Key> keys = randomKeys(g, g.between(1, 300));
      BoundedLoad b = new BoundedLoad(ns, g.between(1, 20), c, keys, Hash64.XXH64);
      long totalWeight = ns.stream().mapToLong(Node::weight).sum();
      long distinct = keys.stream().distinct().count();
      int[] counted = new int[ns.size()];
      for (Key k : keys.stream().distinct().toList()) {
        counted[ns.indexOf(b.owner(k))]++;
      }
      long placed = 0;
      for (int i = 0; i < ns.size(); i++) {
        long cap = (long) Math.ceil(c * keys.size() * ns.get(i).weight() / totalWeight);
        assertThat(b.capOf(i)).isEqualTo(cap);
        assertThat(b.loadOf(i)).isEqualTo(counted[i]).isLessThanOrEqualTo((int) cap);
        placed += b.loadOf(i);
      }
      assertThat(placed).isEqualTo(distinct);
    });
  }

  private static final int[] PRIMES = {101, 211, 307, 401, 503, 1009, 2003};

  @Test
  void maglev_tableIsAPermutationFill_withSharesWithinOneSlot() {
    Property.named("maglev fill").cases(1000).sizes(1, 60).check(g -> {
      int m = PRIMES[g.nextInt(PRIMES.length)];
      List<Node> ns = nodes(g, Math.min(g.size(), m), false);
      Hash64 h = g.pick(HASHES);
      Maglev mg = new Maglev(ns, m, h);
      int[] table = mg.table();
      int[] count = new int[ns.size()];
      for (int e : table) {
        assertThat(e).isBetween(0, ns.size() - 1);
        count[e]++;
      }
      // Round-robin filling: each node claims one slot per turn, so shares differ by at most one.
      int min = Integer.MAX_VALUE;
      int max = 0;
      for (int x : count) {
        min = Math.min(min, x);
        max = Math.max(max, x);
      }
      assertThat(max - min).isLessThanOrEqualTo(1);
      // Each node's preference list is a permutation of the slots, so a free slot always exists.
      for (Node n : ns) {
        long offset = Long.remainderUnsigned(h.hash(n.name() + "#offset"), m);
        long skip = Long.remainderUnsigned(h.hash(n.name() + "#skip"), m - 1) + 1;
        boolean[] seen = new boolean[m];
        for (int j = 0; j < m; j++) {
          int slot = (int) ((offset + (long) j * skip) % m);
          assertThat(seen[slot]).isFalse();
          seen[slot] = true;
        }
      }
      // Lookup is the table entry at hash mod M.
      for (Key k : randomKeys(g, 20)) {
        assertThat(mg.owner(k)).isEqualTo(ns.get(table[(int) Long.remainderUnsigned(h.hash(k), m)]));
      }
    });
  }

  @Test
  void replicas_areDistinctNodesOwnerFirst_inDistinctZonesWhenAsked_andTopScoresForRendezvous() {
    Property.named("replica placement").cases(1000).sizes(1, 20).check(g -> {
      List<Node> ns = nodes(g, g.size(), false);
      int r = g.between(1, 4);
      boolean zones = g.nextBoolean();
      Partitioner p = switch (g.nextInt(5)) {
        case 0 -> new HashRing(ns, g.between(1, 10), Hash64.XXH64);
        case 1 -> new Rendezvous(ns, Hash64.XXH64);
        case 2 -> new ModN(ns, Hash64.XXH64);
        case 3 -> new JumpHash(ns, Hash64.XXH64);
        default -> new Maglev(ns, 101, Hash64.XXH64);
      };
      long distinctZones = ns.stream().map(Node::zone).distinct().count();
      for (Key k : randomKeys(g, 10)) {
        List<Node> reps = Replicas.place(p, k, r, zones);
        assertThat(reps.get(0)).isEqualTo(p.owner(k));
        assertThat(reps).doesNotHaveDuplicates();
        long expected = Math.min(r, zones ? distinctZones : ns.size());
        assertThat(reps).hasSize((int) expected);
        if (zones) {
          assertThat(reps.stream().map(Node::zone).distinct().count()).isEqualTo(reps.size());
        }
        if (p instanceof Rendezvous && !zones) {
          List<Node> byScore = new ArrayList<>(ns);
          byScore.sort((a, b) -> Long.compareUnsigned(score(b, k), score(a, k)));
          assertThat(reps).isEqualTo(byScore.subList(0, reps.size()));
        }
      }
    });
  }

  private static long score(Node n, Key k) {
    return Hash64.XXH64.hash(HashInput.join(HashInput.text(n.name() + "|"), k));
  }
}
