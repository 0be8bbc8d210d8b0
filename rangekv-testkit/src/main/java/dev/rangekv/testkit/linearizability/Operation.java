package dev.rangekv.testkit.linearizability;

import java.util.Objects;

/**
 * One call of one client on one key, with its result and its invocation and completion times
 * (nanoseconds from any one origin). An operation whose result is {@link Result.Unknown} never
 * completed: its completion is {@link #NEVER}.
 *
 * @param id unique within a history
 * @param client the client that made the call; a client's calls do not overlap
 */
public record Operation(int id, int client, String key, Call call, Result result, long invoke, long complete) {
  /** The completion time of an operation whose outcome is unknown. */
  public static final long NEVER = Long.MAX_VALUE;

  public Operation {
    Objects.requireNonNull(key, "key");
    Objects.requireNonNull(call, "call");
    Objects.requireNonNull(result, "result");
    if (complete < invoke) {
      throw new IllegalArgumentException("operation " + id + " completes at " + complete + " before its invoke " + invoke);
    }
    boolean unknown = result instanceof Result.Unknown;
    if (unknown != (complete == NEVER)) {
      throw new IllegalArgumentException("operation " + id + ": an unknown result, and only it, never completes");
    }
    boolean fits = unknown
        || (call instanceof Call.Put || call instanceof Call.Delete) && result instanceof Result.Done
        || call instanceof Call.Get && result instanceof Result.Read
        || call instanceof Call.Cas && (result instanceof Result.Swapped || result instanceof Result.Refused);
    if (!fits) {
      throw new IllegalArgumentException("operation " + id + ": result " + result + " does not answer " + call);
    }
  }

  /** Whether the operation's outcome is unknown (it may or may not have taken effect). */
  public boolean ambiguous() {
    return complete == NEVER;
  }
}
