package dev.rangekv.meta.state;

import com.google.protobuf.ByteString;
import dev.rangekv.proto.RangeDescriptorProto;
import dev.rangekv.proto.ReplicaProto;
import dev.rangekv.testkit.Gen;
import java.util.ArrayList;
import java.util.List;

/**
 * A model cluster over a small key universe: boundaries are the one-byte keys {@code point * 8} for
 * points 1..{@link #POINTS}, so the keys {@code ""} and those bytes represent every region. Random
 * splits, merges and replica moves follow the generation rules (split: both halves old + 1; merge:
 * max + 1; move: + 1); every descriptor ever produced is kept in {@link #history}.
 */
final class ClusterModel {
  static final int POINTS = 24;
  private static final List<String> NODES = List.of("n1", "n2", "n3", "n4", "n5");

  /** One model range over points {@code [lo, hi)}; {@code hi == POINTS + 1} means +infinity. */
  record R(long id, int lo, int hi, List<String> replicas, long gen) {
    RangeDescriptorProto proto() {
      RangeDescriptorProto.Builder b = RangeDescriptorProto.newBuilder()
          .setRangeId(id).setStart(key(lo)).setGeneration(gen);
      if (hi > POINTS) {
        b.setEndInfinite(true);
      } else {
        b.setEnd(key(hi));
      }
      replicas.forEach(n -> b.addReplicas(ReplicaProto.newBuilder().setNodeId(n).setAddress(n + ":7000")));
      return b.build();
    }
  }

  final List<R> ranges = new ArrayList<>();
  final List<RangeDescriptorProto> history = new ArrayList<>();
  private long nextId = 1;
  /** The id the next split's right half gets, when set (the meta state's grants); else {@code nextId}. */
  private long givenChildId;

  /** The key of a point: {@code ""} for 0, else one byte (crossing the signed-byte edge at 16). */
  static ByteString key(int point) {
    return point == 0 ? ByteString.EMPTY : ByteString.copyFrom(new byte[] {(byte) (point * 8)});
  }

  ClusterModel(Gen g) {
    int n = g.between(1, 3);
    List<Integer> cuts = new ArrayList<>();
    while (cuts.size() < n - 1) {
      int c = g.between(1, POINTS);
      if (!cuts.contains(c)) {
        cuts.add(c);
      }
    }
    cuts.sort(null);
    int lo = 0;
    for (int i = 0; i <= cuts.size(); i++) {
      int hi = i < cuts.size() ? cuts.get(i) : POINTS + 1;
      add(new R(nextId++, lo, hi, replicas(g), 1));
      lo = hi;
    }
  }

  private R add(R r) {
    ranges.add(r);
    ranges.sort((a, b) -> Integer.compare(a.lo(), b.lo()));
    history.add(r.proto());
    return r;
  }

  private static List<String> replicas(Gen g) {
    List<String> out = new ArrayList<>();
    int n = g.between(1, 3);
    while (out.size() < n) {
      String node = g.pick(NODES);
      if (!out.contains(node)) {
        out.add(node);
      }
    }
    return out;
  }

  List<RangeDescriptorProto> current() {
    return ranges.stream().map(R::proto).toList();
  }

  /** Has the next split (if the next step splits) give its right half {@code id}. */
  void nextChildId(long id) {
    this.givenChildId = id;
  }

  /** One random split, merge or move (a split of a one-point range or a merge of a lone range is skipped). */
  void step(Gen g) {
    int op = g.nextInt(3);
    int i = g.nextInt(ranges.size());
    R r = ranges.get(i);
    if (op == 0 && r.hi() - r.lo() >= 2) {
      int at = g.between(r.lo() + 1, r.hi() - 1);
      ranges.remove(i);
      add(new R(r.id(), r.lo(), at, r.replicas(), r.gen() + 1));
      long child = givenChildId != 0 ? givenChildId : nextId++;
      givenChildId = 0;
      add(new R(child, at, r.hi(), r.replicas(), r.gen() + 1));
    } else if (op == 1 && i + 1 < ranges.size()) {
      R right = ranges.get(i + 1);
      ranges.remove(i + 1);
      ranges.remove(i);
      add(new R(r.id(), r.lo(), right.hi(), r.replicas(), Math.max(r.gen(), right.gen()) + 1));
    } else if (op == 2) {
      ranges.remove(i);
      add(new R(r.id(), r.lo(), r.hi(), replicas(g), r.gen() + 1));
    }
  }
}
