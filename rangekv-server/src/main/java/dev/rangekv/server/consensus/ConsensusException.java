package dev.rangekv.server.consensus;

/**
 * Why an engine call did not give a result, in the node's terms; the caller maps it to the error its
 * own caller sees. {@link #definitelyNotApplied} tells whether a proposal certainly did not commit.
 */
public final class ConsensusException extends RuntimeException {
  private static final long serialVersionUID = 1L;

  /** The kinds of failure a caller handles differently. */
  public enum Kind {
    /** This replica does not lead; {@link #leaderHint} names the leader when known. */
    NOT_LEADER,
    /** This node runs no group for the range. */
    NO_GROUP,
    /** The leader is handing its leadership over and refuses new entries meanwhile. */
    STEPPING_DOWN,
    /** The leader cannot take entries yet (not ready, or out of resources). */
    NOT_READY,
    /** No answer in time. */
    TIMED_OUT,
    /** Anything else the engine reported. */
    FAILED
  }

  private final Kind kind;
  private final String leaderHint;
  private final boolean definitelyNotApplied;

  public ConsensusException(Kind kind, String message, String leaderHint, boolean definitelyNotApplied) {
    super(message);
    this.kind = kind;
    this.leaderHint = leaderHint == null ? "" : leaderHint;
    this.definitelyNotApplied = definitelyNotApplied;
  }

  public ConsensusException(Kind kind, String message, boolean definitelyNotApplied) {
    this(kind, message, "", definitelyNotApplied);
  }

  public Kind kind() {
    return kind;
  }

  /** The node id of the leader the engine suggests; empty when it knows none. */
  public String leaderHint() {
    return leaderHint;
  }

  public boolean definitelyNotApplied() {
    return definitelyNotApplied;
  }
}
