package dev.rangekv.meta.state;

import dev.rangekv.core.rangemap.RangeDescriptor;
import java.util.Map;
import java.util.Objects;

/**
 * A descriptor as a node reported it: core's descriptor plus the client address of each replica's node
 * as that node knew it. The map keeps the addresses with the descriptor and answers them as reported,
 * since they can differ from the node table's (a replica added while its node had another address, a
 * node not registered yet).
 *
 * @param addresses client address by node id; a replica without one is answered with {@code ""}
 */
public record ReportedRange(RangeDescriptor descriptor, Map<String, String> addresses) {
  public ReportedRange {
    Objects.requireNonNull(descriptor, "descriptor");
    addresses = Map.copyOf(addresses);
  }
}
