package dev.rangekv.server.multiraft;

import io.microraft.RaftEndpoint;

/**
 * One incarnation of a node's replica as a member of a range group: the node's id plus when the leader
 * added it, as the leader's term and the group's committed membership index at that add (both 0 for the
 * group's initial members). MicroRaft never adds an endpoint of the initial member list again, and must
 * not take one incarnation's messages for another's, so every add of a node to a group is a new endpoint
 * (docs/architecture.md, "Re-adding a replica"). On the wire and in the log database it is {@link #wire()}:
 * the node id alone for an initial member (the format before incarnations), else {@code node#term.index}
 * (node ids hold no {@code #}). Incarnations of one node in one group are ordered by (term, index).
 */
record NodeEndpoint(String node, int term, long membersIndex) implements RaftEndpoint {
  /** An initial member's endpoint on {@code node}. */
  NodeEndpoint(String node) {
    this(node, 0, 0);
  }

  @Override
  public Object getId() {
    return wire();
  }

  /** How this endpoint is written on the wire and in the log database. */
  String wire() {
    return term == 0 && membersIndex == 0 ? node : node + '#' + term + '.' + membersIndex;
  }

  /** The endpoint {@link #wire()} wrote. */
  static NodeEndpoint parse(String wire) {
    int hash = wire.lastIndexOf('#');
    if (hash < 0) {
      return new NodeEndpoint(wire);
    }
    int dot = wire.indexOf('.', hash);
    if (dot < 0) {
      throw new IllegalArgumentException("bad replica endpoint '" + wire + "'");
    }
    return new NodeEndpoint(wire.substring(0, hash), Integer.parseInt(wire.substring(hash + 1, dot)),
        Long.parseLong(wire.substring(dot + 1)));
  }

  /** True when this is a later incarnation than {@code other} (of the same node and group). */
  boolean laterThan(NodeEndpoint other) {
    return term != other.term ? term > other.term : membersIndex > other.membersIndex;
  }

  /** The node id of {@code endpoint}; empty for none. */
  static String idOf(RaftEndpoint endpoint) {
    return endpoint == null ? "" : ((NodeEndpoint) endpoint).node;
  }

  /** {@code endpoint}'s {@link #wire()} form; empty for none. */
  static String wireOf(RaftEndpoint endpoint) {
    return endpoint == null ? "" : ((NodeEndpoint) endpoint).wire();
  }

  @Override
  public String toString() {
    return wire();
  }
}
