package dev.rangekv.bench.multiraft;

import io.microraft.RaftEndpoint;

/** A spike node as MicroRaft sees it: its index in the cluster (0, 1, 2). */
record NodeEndpoint(int node) implements RaftEndpoint {
  @Override
  public Object getId() {
    return node;
  }
}
