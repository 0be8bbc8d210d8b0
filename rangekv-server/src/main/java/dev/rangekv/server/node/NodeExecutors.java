package dev.rangekv.server.node;

import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The node's own thread pools, named after the node so a thread dump of a multi-node JVM (tests, the
 * demo) tells them apart. Every thread is a daemon: a node that was not closed never holds a JVM open.
 *
 * @param groups one thread: group opens and reconciliation, proposal-buffer timers, health, sampling
 * @param closes closing a dormant range's division takes up to a second: on their own threads, not
 *     ahead of opens
 * @param moves replica moves, span transfers and merges (cached: each waits on peers)
 * @param kv the KV handlers, which never block (they hand work to Ratis and reply from its callbacks)
 */
record NodeExecutors(ScheduledExecutorService groups, ScheduledExecutorService closes, ExecutorService moves,
    ExecutorService kv) {
  /** KV handler threads: enough to keep both cores busy while one waits on a Raft monitor. */
  static final int KV_THREADS = 4;
  private static final int CLOSE_THREADS = 4;

  static NodeExecutors start(String nodeId) {
    return new NodeExecutors(
        Executors.newSingleThreadScheduledExecutor(named(nodeId, "groups", false)),
        Executors.newScheduledThreadPool(CLOSE_THREADS, named(nodeId, "closes", false)),
        Executors.newCachedThreadPool(named(nodeId, "moves", false)),
        Executors.newFixedThreadPool(KV_THREADS, named(nodeId, "kv", true)));
  }

  void shutdownNow() {
    groups.shutdownNow();
    closes.shutdownNow();
    moves.shutdownNow();
    kv.shutdownNow();
  }

  private static ThreadFactory named(String nodeId, String pool, boolean numbered) {
    AtomicInteger count = new AtomicInteger();
    return r -> {
      Thread t = new Thread(r, "rangekv-" + nodeId + "-" + pool + (numbered ? "-" + count.incrementAndGet() : ""));
      t.setDaemon(true);
      return t;
    };
  }
}
