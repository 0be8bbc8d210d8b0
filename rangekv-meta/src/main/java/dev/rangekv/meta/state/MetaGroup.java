package dev.rangekv.meta.state;

import dev.rangekv.core.cluster.NodeInfo;
import dev.rangekv.core.rangemap.RangeIdBlock;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;

/** This node's replica of the meta range: its applied state, its leadership, and writes through Raft. */
public interface MetaGroup {
  /** The state applied on this node. */
  MetaView view();

  /** True while this node is the meta range's leader (and its lease-holder for local reads). */
  boolean isLeader();

  /** The meta leader's node id, when known. */
  Optional<String> leaderNodeId();

  /**
   * Proposes {@code change} (only on the leader; {@link MetaCommands} encodes it as a log entry) and
   * completes with the view after it was applied here; fails with {@code NotMetaLeaderException}
   * elsewhere, or with the Raft error.
   */
  CompletableFuture<MetaView> propose(MetaChange change);

  /**
   * Grants {@code count} new range ids (only on the leader) through one {@code allocate_range_ids}
   * entry: ids never granted before, above every id in the map (see core's {@code RangeIds}). Fails as
   * {@link #propose} does; a grant whose answer was lost is a gap, never granted again.
   */
  CompletableFuture<RangeIdBlock> allocateRangeIds(int count);

  /** The node ids of the meta range's voters, as this replica's current configuration has them. */
  List<String> voterIds();

  /**
   * On the leader: makes {@code voters} (with their Raft addresses) the meta range's voters; completes
   * when the new configuration is committed. Added voters must host an empty meta replica already.
   */
  CompletableFuture<Void> changeVoters(List<NodeInfo> voters);
}
