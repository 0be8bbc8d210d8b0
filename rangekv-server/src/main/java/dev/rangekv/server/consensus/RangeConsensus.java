package dev.rangekv.server.consensus;

import dev.rangekv.proto.replica.CommandResult;
import dev.rangekv.proto.replica.QueryResult;
import dev.rangekv.proto.replica.RangeCommand;
import dev.rangekv.proto.replica.RangeQuery;
import java.io.IOException;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Set;
import java.util.concurrent.CompletableFuture;

/**
 * The node's consensus engine for its range groups: one object per node that opens, closes and destroys
 * the group of each range this node holds a replica of, and runs proposals, linearizable reads,
 * membership changes and leadership transfers on them. Every long-running call answers with a future
 * and never parks the caller; no call assumes a thread per group. The engine hands committed entries to
 * the range's {@code replica.RangeReplica}, which it obtains from the node when it opens a group.
 * Implementations are thread-safe.
 *
 * <p>Failed futures carry a {@link ConsensusException}, or the {@code replica.RangeKvException} with
 * which the replica refused a proposal.
 */
public interface RangeConsensus {
  /** This node's id in every group. */
  String selfId();

  /** The ranges whose group this node runs now (opening, open or closed by the engine itself). */
  Set<Long> openRanges();

  /** True when this node runs {@code rangeId}'s group. */
  default boolean isOpen(long rangeId) {
    return openRanges().contains(rangeId);
  }

  /**
   * Creates {@code rangeId}'s group on fresh storage with {@code members}; false when it runs already.
   * Fails when the engine refuses (storage of an earlier group with the same id, say).
   */
  boolean create(long rangeId, List<Member> members) throws IOException;

  /**
   * Creates an empty replica of {@code rangeId}'s group that knows no configuration: the leader adds it
   * as a member and catches it up (a replica being added to a range).
   */
  void createEmpty(long rangeId) throws IOException;

  /**
   * Stops {@code rangeId}'s group here keeping its storage, where a start of the engine does not open
   * it by itself (a dormant range); {@link #reopen} resumes it.
   */
  void close(long rangeId) throws IOException;

  /**
   * Opens {@code rangeId}'s group from the storage {@link #close} kept (recovering its log, term and
   * vote), or on fresh storage with {@code members} when none was kept; a group the engine closed on its
   * own is stopped first. False when it ran already.
   */
  boolean reopen(long rangeId, List<Member> members) throws IOException;

  /** Stops {@code rangeId}'s group here and deletes its storage; a no-op when it does not run. */
  void destroy(long rangeId) throws IOException;

  /** Who leads {@code rangeId}'s group as this replica believes; empty when this node runs no group for it. */
  Optional<Leadership> leadership(long rangeId);

  /** A snapshot of this node's replica of {@code rangeId}'s group; empty when it runs none. */
  Optional<GroupStatus> status(long rangeId);

  /**
   * Proposes {@code cmd} to {@code rangeId}'s group (from this node, its leader) and completes with the
   * result the replica applied, which may be a refusal; fails when it was not applied or the outcome is
   * unknown (see {@link ConsensusException#definitelyNotApplied}).
   */
  CompletableFuture<CommandResult> propose(long rangeId, RangeCommand cmd);

  /** Runs {@code query} on this node's replica once the leadership is confirmed (lease or read index). */
  CompletableFuture<QueryResult> read(long rangeId, RangeQuery query);

  /**
   * Changes {@code rangeId}'s voters from {@code current} (compared, refused when the configuration is no
   * longer that) to {@code next}: new members are caught up before they count towards a majority, and a
   * change that replaces members runs as one joint change (old and new majorities both needed meanwhile),
   * so the voter count never grows on the way. An engine that changes one member at a time (the multi-raft
   * engine) adds each arriving member as a learner, promotes it once caught up, and removes the leaving
   * ones last: the voter count grows by the arrivals meanwhile, and its leader's {@link #status} names
   * {@code current} as the previous members until the last step ended (a second change is refused until
   * then). Completes once {@code next} committed; fails after {@code timeout}.
   */
  CompletableFuture<Void> changeMembers(long rangeId, List<Member> current, List<Member> next, Duration timeout);

  /**
   * Hands the leadership of {@code rangeId} to {@code target} (this node leading); completes with true
   * once the target leads. A transfer that failed to start leaves the group writable (the engine steps
   * down if it must).
   */
  CompletableFuture<Boolean> transferLeadership(long rangeId, String target, Duration timeout);

  /**
   * Has this node's replica of a freshly opened group stand for election now instead of after its first
   * election timeout; false when it is no leaderless follower or the engine refused.
   */
  boolean campaign(long rangeId) throws IOException;

  /** The term of entry {@code index} of {@code rangeId}'s log here, while the log holds it. */
  OptionalLong logTermAt(long rangeId, long index);

  /**
   * Has {@code listener} hear this node's leadership and configuration events (see {@link GroupEvents}):
   * first a became for each range this node leads now, then every later event, in order per range.
   */
  void addListener(GroupEvents listener);

  /**
   * Whether {@code rangeId}'s group here is quiet, read cheaply: 0 while it is awake (and always, for an
   * engine whose groups never quiesce); otherwise a stamp that stays the same only while the group stays
   * quiet and nothing its {@link #status} depends on changes but the clock (a wake, another quiet period,
   * a peer node going unheard or heard again all give another). A caller that saw the same non-zero stamp
   * before and after reading the status may skip reading it again until the stamp changes.
   */
  default long quietStamp(long rangeId) {
    return 0;
  }

  /** This node's replica's current term of {@code rangeId}, read cheaply on every write. */
  default OptionalLong currentTerm(long rangeId) {
    return status(rangeId).map(s -> OptionalLong.of(s.currentTerm())).orElse(OptionalLong.empty());
  }
}
