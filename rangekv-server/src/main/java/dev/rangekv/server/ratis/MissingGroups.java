package dev.rangekv.server.ratis;

import org.apache.ratis.protocol.exceptions.GroupMismatchException;

/**
 * Tells the failures Ratis logs, with a stack trace each, when a peer sends a vote request or an append
 * for a range group this node does not run (a split's child whose split it has not applied yet, or a
 * dormant range it has closed): expected while groups open and close, and the peer tries again. A node's
 * log configuration uses this to replace them by one line now and then (the CLI's logging).
 */
public final class MissingGroups {
  private MissingGroups() {}

  /** True when {@code t}, or one of its causes, says the group was not found on a node. */
  public static boolean isMissingGroup(Throwable t) {
    for (Throwable c = t; c != null; c = c.getCause() == c ? null : c.getCause()) {
      if (c instanceof GroupMismatchException) {
        return true;
      }
    }
    return false;
  }
}
