package dev.rangekv.server.multiraft;

import io.microraft.RaftEndpoint;

/** A node as a member of every range group it holds a replica of: its node id. */
record NodeEndpoint(String id) implements RaftEndpoint {
  @Override
  public Object getId() {
    return id;
  }

  static String idOf(RaftEndpoint endpoint) {
    return endpoint == null ? "" : (String) endpoint.getId();
  }

  @Override
  public String toString() {
    return id;
  }
}
