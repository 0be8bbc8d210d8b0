package dev.rangekv.core.split;

import dev.rangekv.core.key.Key;
import dev.rangekv.core.key.RangeEnd;
import dev.rangekv.core.rangemap.RangeDescriptor;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * A pre-split of the keyspace: the split points and, for each resulting range in key order, the nodes
 * to hold its replicas (the first one to lead), scattered so replicas and leaders spread evenly.
 *
 * @param splitPoints strictly increasing, none empty
 * @param placements {@code splitPoints.size() + 1} replica lists, one per range in key order
 */
public record PreSplitPlan(List<Key> splitPoints, List<List<String>> placements) {

  public PreSplitPlan {
    splitPoints = List.copyOf(splitPoints);
    placements = placements.stream().map(List::copyOf).toList();
    if (placements.size() != splitPoints.size() + 1) {
      throw new IllegalArgumentException("need " + (splitPoints.size() + 1) + " placements, got " + placements.size());
    }
    for (int i = 0; i < splitPoints.size(); i++) {
      Objects.requireNonNull(splitPoints.get(i), "split point");
      if (splitPoints.get(i).isEmpty() || (i > 0 && !splitPoints.get(i - 1).isBefore(splitPoints.get(i)))) {
        throw new IllegalArgumentException("split points must be non-empty and strictly increasing at index " + i);
      }
    }
  }

  /** The planned ranges as descriptors with ids {@code firstRangeId, firstRangeId + 1, ...} at generation 1. */
  public List<RangeDescriptor> descriptors(long firstRangeId) {
    List<RangeDescriptor> out = new ArrayList<>(placements.size());
    for (int i = 0; i < placements.size(); i++) {
      Key start = i == 0 ? Key.EMPTY : splitPoints.get(i - 1);
      RangeEnd end = i == splitPoints.size() ? RangeEnd.INFINITY : RangeEnd.at(splitPoints.get(i));
      out.add(new RangeDescriptor(firstRangeId + i, start, end, placements.get(i), 1));
    }
    return out;
  }
}
