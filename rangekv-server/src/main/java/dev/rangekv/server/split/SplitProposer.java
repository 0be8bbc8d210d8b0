package dev.rangekv.server.split;

import com.google.protobuf.ByteString;
import dev.rangekv.core.key.Key;
import dev.rangekv.core.rangemap.RangeDescriptor;
import dev.rangekv.proto.RangeHeader;
import dev.rangekv.proto.RangeKvError;
import dev.rangekv.proto.admin.SplitRangeResponse;
import dev.rangekv.proto.convert.ProtoValues;
import dev.rangekv.proto.convert.RangeKvErrors;
import dev.rangekv.proto.replica.RangeCommand;
import dev.rangekv.proto.replica.RaftReplica;
import dev.rangekv.proto.replica.SplitCommand;
import dev.rangekv.storage.NodeStore;
import dev.rangekv.storage.StoreException;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.function.Consumer;

/**
 * The propose step of a split, on the range's leader: checks the split key (the request's, or the
 * store's byte midpoint of the range when it is empty), takes the child's range id (the request's, or
 * one granted by the meta range through {@link RangeIdSource}), and proposes one {@link SplitCommand}
 * in the range's group at the request's generation.
 *
 * <p>Idempotence comes from the generation, not the id: every split bumps the parent's generation, so
 * of two proposals at one generation (a retry after a lost answer, two callers) exactly one applies
 * and the other is refused; its child id is never used (a gap). Nothing here blocks: the id and the
 * proposal complete asynchronously. Thread-safe.
 */
public final class SplitProposer {
  private final SplitHost host;
  private final NodeStore store;
  private final RangeIdSource ids;
  private final Consumer<SplitRangeResponse> applied;

  /**
   * @param applied told (before the reply) when a split this leader proposed applied here, e.g. to hurry
   *     the followers and the child's first election; must not block
   */
  public SplitProposer(SplitHost host, NodeStore store, RangeIdSource ids, Consumer<SplitRangeResponse> applied) {
    this.host = host;
    this.store = store;
    this.ids = ids;
    this.applied = applied;
  }

  /**
   * Splits the range {@code header} names at {@code splitKey} (empty: its midpoint), giving the right
   * half {@code childRangeId} (0: a granted one); completes with both halves. Fails with a {@link
   * SplitRefusedException} before proposing, or with the refusal the proposal got.
   */
  public CompletableFuture<SplitRangeResponse> split(RangeHeader header, ByteString splitKey, long childRangeId) {
    return split(header, splitKey, childRangeId, false);
  }

  /**
   * As {@link #split(RangeHeader, ByteString, long)}; with {@code childDormant} the right half is born
   * dormant (recorded dormant with its record; no replica opens its group until something wakes it).
   */
  public CompletableFuture<SplitRangeResponse> split(RangeHeader header, ByteString splitKey, long childRangeId,
      boolean childDormant) {
    long rangeId = header.getRangeId();
    ByteString at;
    List<RaftReplica> peers;
    try {
      at = splitKey.isEmpty() ? midpoint(rangeId) : splitKey;
      RangeDescriptor d = host.descriptor(rangeId).orElseThrow(() -> refused(RangeKvErrors.rangeNotFound(rangeId)));
      if (d.start().equals(ProtoValues.key(at))) {
        throw refused(RangeKvErrors.invalidArgument("split_key", "split key equals the range start"));
      }
      peers = host.peers(rangeId);
      if (peers.isEmpty()) {
        throw refused(RangeKvErrors.unavailable("range " + rangeId + " has no replica record on this node", true));
      }
      if (childRangeId == d.rangeId()) {
        throw refused(RangeKvErrors.invalidArgument("child_range_id", "the child's id is the parent's"));
      }
    } catch (SplitRefusedException e) {
      return CompletableFuture.failedFuture(e);
    }
    // a non-leader refuses before an id is granted for nothing (the proposal checks again)
    Optional<RangeKvError> notLeader = host.leaderOrRefusal(rangeId);
    if (notLeader.isPresent()) {
      return CompletableFuture.failedFuture(refused(notLeader.get()));
    }
    CompletableFuture<Long> childId = childRangeId != 0 ? CompletableFuture.completedFuture(childRangeId) : ids.next();
    return childId.thenCompose(id -> host.propose(RangeCommand.newBuilder().setHeader(header)
            .setSplit(SplitCommand.newBuilder().setSplitKey(at).setChildRangeId(id).addAllPeers(peers)
                .setChildDormant(childDormant)).build()))
        .thenApply(r -> {
          if (r.hasSplit()) {
            applied.accept(r.getSplit());
          }
          return r.getSplit();
        });
  }

  /**
   * The store's byte-midpoint key of the range's current span, on its leader; refused when this node
   * does not lead it or the range holds fewer than 2 keys (then no split key lies strictly inside).
   */
  private ByteString midpoint(long rangeId) {
    Optional<RangeKvError> notLeader = host.leaderOrRefusal(rangeId);
    if (notLeader.isPresent()) {
      throw refused(notLeader.get());
    }
    RangeDescriptor d = host.descriptor(rangeId).orElseThrow(() -> refused(
        RangeKvErrors.unavailable("range " + rangeId + " is not ready on this node", true)));
    Optional<Key> mid;
    try {
      mid = store.findSplitKey(d.start(), d.end());
    } catch (StoreException e) {
      throw refused(RangeKvErrors.unavailable(
          "finding the midpoint of range " + rangeId + " failed: " + e.getMessage(), true));
    }
    return mid.map(ProtoValues::bytes).orElseThrow(() -> refused(RangeKvErrors.invalidArgument(
        "split_key", "range " + rangeId + " " + d + " holds fewer than 2 keys: it has no midpoint to split at;"
            + " give a split_key")));
  }

  private static SplitRefusedException refused(RangeKvError error) {
    return new SplitRefusedException(error);
  }
}
