package dev.rangekv.storage;

import dev.rangekv.core.rangemap.RangeDescriptor;
import java.util.Objects;

/**
 * The persisted per-range local state of one replica on this node: the descriptor it last applied and
 * the Raft term and index of its last applied entry. Written in the same atomic batch as the data the
 * entry changed, so after a crash data and applied index agree.
 */
public record RangeLocalState(RangeDescriptor descriptor, long appliedTerm, long appliedIndex) {
  public RangeLocalState {
    Objects.requireNonNull(descriptor, "descriptor");
    if (appliedTerm < 0 || appliedIndex < 0) {
      throw new IllegalArgumentException("negative applied term=" + appliedTerm + " index=" + appliedIndex);
    }
  }

  public long rangeId() {
    return descriptor.rangeId();
  }

  public RangeLocalState withApplied(long term, long index) {
    return new RangeLocalState(descriptor, term, index);
  }
}
