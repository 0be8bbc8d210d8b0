package dev.rangekv.server.multiraft;

import java.util.Arrays;

/**
 * When each peer replica of one group (by its endpoint's wire form: one incarnation) last sent the group a
 * message (nanoTime). A replica that sent anything runs the group, so a leader's requests to it need not carry the group's initial members, which
 * only a replica still joining uses. Used on the group's stripe thread; a group has a handful of peers.
 */
final class PeersHeard {
  private String[] nodes = new String[0];
  private long[] at = new long[0];

  /** {@code node} sent a message at {@code now}. */
  void heard(String node, long now) {
    for (int i = 0; i < nodes.length; i++) {
      if (nodes[i].equals(node)) {
        at[i] = now;
        return;
      }
    }
    nodes = Arrays.copyOf(nodes, nodes.length + 1);
    at = Arrays.copyOf(at, at.length + 1);
    nodes[nodes.length - 1] = node;
    at[at.length - 1] = now;
  }

  /** True when {@code node} sent a message less than {@code within} nanoseconds before {@code now}. */
  boolean within(String node, long now, long within) {
    for (int i = 0; i < nodes.length; i++) {
      if (nodes[i].equals(node)) {
        return now - at[i] < within;
      }
    }
    return false;
  }
}
