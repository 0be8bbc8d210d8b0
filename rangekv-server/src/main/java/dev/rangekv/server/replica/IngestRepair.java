package dev.rangekv.server.replica;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Fetches the span of a range whose replica must apply a restore's ingest entry but has no staged copy
 * of its files (the replica joined the range after the staging, or its node lost the copy): from a node
 * that staged the files, once that node has applied the entry, so the span holds the restored keys. The
 * replica then installs it as a new replica installs its first span, and skips the entries it covers.
 * Blocks the caller (the range's apply, which cannot go on without the data) for at most {@link #PATIENCE}.
 */
final class IngestRepair {
  private static final Logger log = LoggerFactory.getLogger(IngestRepair.class);
  /** How long the apply waits for a node that staged the files to serve the range at the entry. */
  static final Duration PATIENCE = Duration.ofMinutes(10);

  private IngestRepair() {}

  /** A span of {@code rangeId} at an applied index of at least {@code index}, from one of {@code sources}. */
  static StagedSpan fetch(ReplicaHost host, long rangeId, List<String> sources, long index) {
    long deadline = System.nanoTime() + PATIENCE.toNanos();
    String last = "no node staged the files";
    for (int round = 1; System.nanoTime() < deadline; round++) {
      for (String node : sources) {
        if (node.equals(host.nodeId())) {
          continue; // this node: its export would wait for the apply lock this apply holds
        }
        try {
          StagedSpan span = host.fetchSpan(rangeId, node).get(2, TimeUnit.MINUTES);
          if (span.appliedIndex() >= index) {
            return span;
          }
          span.discard(); // that node has not applied the entry yet
          last = "node " + node + " has applied up to " + span.appliedIndex();
        } catch (ExecutionException | TimeoutException e) {
          last = "node " + node + ": " + (e.getCause() == null ? e : e.getCause());
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
          throw new IllegalStateException("interrupted fetching a restored span rangeId=" + rangeId, e);
        }
      }
      log.info("restored span not served yet rangeId={} index={} round={} last={}", rangeId, index, round, last);
      try {
        Thread.sleep(Math.min(2_000, 100L * round)); // the sources apply the entry within a Raft round or two
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new IllegalStateException("interrupted fetching a restored span rangeId=" + rangeId, e);
      }
    }
    throw new IllegalStateException("restore files were not staged on this node and no node that staged them"
        + " served range " + rangeId + " at index " + index + " within " + PATIENCE + ": " + last);
  }
}
