package dev.rangekv.core.rebalance;

import dev.rangekv.core.cluster.Move;
import dev.rangekv.core.cluster.RangeStats;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The rebalancer's working copy of per-node load over the live nodes, in four dimensions: replica
 * count, bytes, leader QPS (the leader serves the reads and orders the writes) and leader count.
 * Planned actions are applied to it so later choices in the same tick see them. Single-use, local to
 * one planning call.
 *
 * <p>Score: the sum over dimensions and nodes of {@code ((value - mean) / mean)^2}. Totals, hence
 * means, never change when replicas or leaders move, so a move of weight {@code w} from {@code a} to
 * {@code b} changes one dimension's term by {@code 2w(w - (va - vb)) / mean^2}: it helps exactly when
 * {@code w < va - vb}. Accepting only score-reducing actions rules out cycles.
 *
 * <p>Hysteresis: that change is {@code -2w((va - vb) - w) / mean^2}, so a move whose weight nearly equals
 * the difference it corrects (3 leaders against 2, ranges of equal load) gains about nothing, and the
 * noise of one tick's measurement decides its sign; the next tick's noise then moves it back. {@link
 * #weight} is the gain of a move that exactly closes a difference of {@code 2w}; the planner takes only
 * actions that gain a set share of it (see {@code rebalance.min-gain}).
 */
final class ClusterLoad {
  static final int REPLICAS = 0;
  static final int BYTES = 1;
  static final int QPS = 2;
  static final int LEADERS = 3;
  static final String[] NAMES = {"replicas", "bytes", "qps", "leaders"};

  private final Map<String, double[]> load = new HashMap<>();
  private final double[] mean = new double[4];

  ClusterLoad(List<String> liveNodes, List<RangeStats> ranges) {
    this(liveNodes, ranges, List.of());
  }

  /** The load once {@code inFlight} has landed (see {@link #landInFlight}). */
  ClusterLoad(List<String> liveNodes, List<RangeStats> ranges, List<Move> inFlight) {
    for (String n : liveNodes) {
      load.put(n, new double[4]);
    }
    for (RangeStats r : ranges) {
      for (String n : r.range().replicas()) {
        double[] v = load.get(n);
        if (v != null) {
          v[REPLICAS] += 1;
          v[BYTES] += r.bytes();
        }
      }
      double[] leader = load.get(r.leaderNodeId());
      if (leader != null) {
        leader[QPS] += r.qps();
        leader[LEADERS] += 1;
      }
    }
    landInFlight(ranges, inFlight);
    for (double[] v : load.values()) {
      for (int d = 0; d < 4; d++) {
        mean[d] += v[d] / load.size();
      }
    }
  }

  /**
   * Counts moves in flight as landed: a range's replica and bytes leave the source (when it still
   * holds the range and is live) and reach the target (unless the descriptor lists it already). Without
   * this, each tick of a multi-tick move saw the old imbalance and planned another move for it; the
   * overshoot was then moved back (flapping). Leader load stays put: which replica takes over from a
   * moved leader is the mover's choice, except for a lone replica, whose leadership goes with it.
   */
  private void landInFlight(List<RangeStats> ranges, List<Move> moves) {
    Map<Long, RangeStats> byId = new HashMap<>();
    ranges.forEach(r -> byId.put(r.rangeId(), r));
    for (Move m : moves) {
      RangeStats r = byId.get(m.rangeId());
      if (r == null) {
        continue;
      }
      List<String> replicas = r.range().replicas();
      double[] to = load.get(m.toNode());
      if (to != null && !replicas.contains(m.toNode())) {
        to[REPLICAS] += 1;
        to[BYTES] += r.bytes();
      }
      String from = m.fromNode().orElse("");
      double[] source = load.get(from);
      if (source != null && replicas.contains(from)) {
        source[REPLICAS] -= 1;
        source[BYTES] -= r.bytes();
        if (replicas.size() == 1 && r.leaderNodeId().equals(from) && to != null) {
          source[QPS] -= r.qps();
          source[LEADERS] -= 1;
          to[QPS] += r.qps();
          to[LEADERS] += 1;
        }
      }
    }
  }

  double value(String node, int dim) {
    return load.get(node)[dim];
  }

  double mean(int dim) {
    return mean[dim];
  }

  /** The change in score if {@code delta[d]} moves from {@code a} to {@code b} in each dimension. */
  double scoreDelta(String a, String b, double[] delta) {
    double[] va = load.get(a);
    double[] vb = load.get(b);
    double total = 0;
    for (int d = 0; d < 4; d++) {
      double w = delta[d];
      if (w != 0 && mean[d] > 0) {
        total += 2 * w * (w - (va[d] - vb[d])) / (mean[d] * mean[d]);
      }
    }
    return total;
  }

  /**
   * The score gain of moving {@code delta} across a difference of exactly twice itself, summed over the
   * dimensions: {@code sum 2 (w / mean)^2}. The scale against which an action's gain is judged.
   */
  double weight(double[] delta) {
    double total = 0;
    for (int d = 0; d < 4; d++) {
      if (delta[d] != 0 && mean[d] > 0) {
        double w = delta[d] / mean[d];
        total += 2 * w * w;
      }
    }
    return total;
  }

  void apply(String a, String b, double[] delta) {
    for (int d = 0; d < 4; d++) {
      load.get(a)[d] -= delta[d];
      load.get(b)[d] += delta[d];
    }
  }

  /** Total score; 0 is perfect balance. */
  double score() {
    double s = 0;
    for (double[] v : load.values()) {
      for (int d = 0; d < 4; d++) {
        if (mean[d] > 0) {
          double x = (v[d] - mean[d]) / mean[d];
          s += x * x;
        }
      }
    }
    return s;
  }

  /**
   * Nodes and dimensions outside the tolerance band, as {@code "node:dim"} labels. Count dimensions
   * also allow a distance of one, since integers cannot always reach a fractional mean.
   */
  List<String> outOfTolerance(double tolerance) {
    return outOfTolerance(tolerance, 0);
  }

  /**
   * As {@link #outOfTolerance(double)}, with the band widened by {@code margin}: a share of the slack
   * for bytes and QPS, half a unit per unit of margin for counts. The planner starts balancing only when
   * a node is out by that margin, then brings nodes back within the plain band (hysteresis: a node that
   * drifts just past the band, a tie with the mean in all but noise, is not acted on).
   */
  List<String> outOfTolerance(double tolerance, double margin) {
    List<String> out = new ArrayList<>();
    for (Map.Entry<String, double[]> e : load.entrySet()) {
      for (int d = 0; d < 4; d++) {
        double slack = tolerance * mean[d];
        if (d == REPLICAS || d == LEADERS) {
          slack = Math.max(slack, 1) + margin / 2;
        } else {
          slack *= 1 + margin;
        }
        if (Math.abs(e.getValue()[d] - mean[d]) > slack) {
          out.add(e.getKey() + ":" + NAMES[d]);
        }
      }
    }
    out.sort(null);
    return out;
  }
}
