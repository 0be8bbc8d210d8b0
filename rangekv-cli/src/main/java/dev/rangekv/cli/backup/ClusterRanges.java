package dev.rangekv.cli.backup;

import dev.rangekv.cli.cluster.MetaCalls;
import dev.rangekv.core.backup.KeySpan;
import dev.rangekv.proto.GetMapRequest;
import dev.rangekv.proto.GetMapResponse;
import dev.rangekv.proto.RangeDescriptorProto;
import dev.rangekv.proto.ReplicaProto;
import dev.rangekv.proto.convert.ProtoValues;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;

/**
 * The cluster's ranges in key order as the meta range has them, with each range's leader (as heartbeats
 * report it), read once.
 *
 * @param ranges the descriptors in key order
 * @param leaders range id to leader node id (missing: not known)
 */
record ClusterRanges(List<RangeDescriptorProto> ranges, Map<Long, String> leaders) {
  ClusterRanges {
    ranges = List.copyOf(ranges);
    leaders = Map.copyOf(leaders);
  }

  static ClusterRanges read(MetaCalls meta) {
    GetMapResponse map = meta.read(s -> s.getMap(GetMapRequest.newBuilder().build()));
    List<RangeDescriptorProto> sorted = new ArrayList<>(map.getRangesList());
    sorted.sort(Comparator.comparing(d -> ProtoValues.key(d.getStart())));
    return new ClusterRanges(sorted, map.getLeaderNodeIdsMap());
  }

  static KeySpan span(RangeDescriptorProto d) {
    return new KeySpan(ProtoValues.key(d.getStart()), ProtoValues.end(d.getEnd(), d.getEndInfinite()));
  }

  List<KeySpan> spans() {
    return ranges.stream().map(ClusterRanges::span).toList();
  }

  /** The range's replicas' client addresses, its leader's first. */
  List<String> addresses(RangeDescriptorProto d) {
    String leader = leaders.getOrDefault(d.getRangeId(), "");
    List<String> out = new ArrayList<>();
    for (ReplicaProto r : d.getReplicasList()) {
      if (r.getNodeId().equals(leader)) {
        out.add(0, r.getAddress());
      } else {
        out.add(r.getAddress());
      }
    }
    return out;
  }
}
