package dev.rangekv.sim.partition;

import dev.rangekv.core.key.Key;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.Iterator;
import java.util.List;

/**
 * Rendezvous or highest-random-weight hashing (Thaler and Ravishankar, 1998): score every node with
 * {@code hash("{node}|{key}")} and pick the highest; ties go to the earlier node. O(N) per lookup.
 *
 * <p>With equal weights the raw unsigned hashes are compared (exactly seed 004's scheme). With
 * unequal weights the score is {@code -w / ln(u)}, {@code u} the hash mapped into (0, 1), which gives
 * node {@code i} a share {@code w_i / sum(w)} and still moves only the keys that must move.
 */
public final class Rendezvous implements Partitioner {
  private final List<Node> nodes;
  private final Hash64 hash;
  private final byte[][] prefixes;
  private final boolean weighted;

  public Rendezvous(List<Node> nodes, Hash64 hash) {
    this.nodes = Schemes.checkNodes(nodes);
    this.hash = hash;
    this.prefixes = new byte[this.nodes.size()][];
    for (int i = 0; i < prefixes.length; i++) {
      prefixes[i] = HashInput.text(this.nodes.get(i).name() + "|");
    }
    this.weighted = this.nodes.stream().mapToInt(Node::weight).distinct().count() > 1;
  }

  @Override
  public Node owner(Key key) {
    int best = 0;
    if (weighted) {
      double bestScore = weightedScore(0, key);
      for (int i = 1; i < prefixes.length; i++) {
        double s = weightedScore(i, key);
        if (s > bestScore) {
          best = i;
          bestScore = s;
        }
      }
    } else {
      long bestScore = rawScore(0, key);
      for (int i = 1; i < prefixes.length; i++) {
        long s = rawScore(i, key);
        if (s > bestScore) {
          best = i;
          bestScore = s;
        }
      }
    }
    return nodes.get(best);
  }

  @Override
  public List<Node> nodes() {
    return nodes;
  }

  /** All nodes by descending score: the top r are the natural replica list. */
  @Override
  public Iterator<Node> candidates(Key key) {
    List<Integer> idx = new ArrayList<>(nodes.size());
    Comparator<Integer> byScore;
    if (weighted) {
      double[] scores = new double[nodes.size()];
      for (int i = 0; i < scores.length; i++) {
        scores[i] = weightedScore(i, key);
      }
      byScore = Comparator.comparingDouble((Integer i) -> scores[i]);
    } else {
      long[] scores = new long[nodes.size()];
      for (int i = 0; i < scores.length; i++) {
        scores[i] = rawScore(i, key);
      }
      byScore = Comparator.comparingLong((Integer i) -> scores[i]);
    }
    for (int i = 0; i < nodes.size(); i++) {
      idx.add(i);
    }
    // Stable sort keeps the earlier node first on ties, like owner().
    idx.sort(byScore.reversed());
    return idx.stream().map(nodes::get).iterator();
  }

  /** The hash with its sign bit flipped, so signed comparison is the unsigned order. */
  private long rawScore(int i, Key key) {
    return hash.hash(HashInput.join(prefixes[i], key)) ^ Long.MIN_VALUE;
  }

  private double weightedScore(int i, Key key) {
    long h = hash.hash(HashInput.join(prefixes[i], key));
    double u = ((h >>> 11) + 0.5) / 0x1p53;
    return -nodes.get(i).weight() / Math.log(u);
  }
}
