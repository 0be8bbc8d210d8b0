package dev.rangekv.server.move;

import java.time.Duration;

/**
 * How replica moves run on a node.
 *
 * @param bytesPerSecond default span snapshot bandwidth limit of a sender (0 = unlimited); an add
 *     request may set its own
 * @param chunkBytes bytes per streamed chunk (bounded by gRPC message size)
 * @param sstFileBytes target size of each exported SST file
 * @param catchUpTimeout how long an add waits for the new replica to catch up before aborting
 * @param applyWaitTimeout how long a merge waits for every replica to apply its freeze or merge
 */
public record MoveOptions(long bytesPerSecond, int chunkBytes, long sstFileBytes, Duration catchUpTimeout,
    Duration applyWaitTimeout) {
  public MoveOptions {
    if (chunkBytes <= 0 || chunkBytes > (4 << 20) || sstFileBytes <= 0) {
      throw new IllegalArgumentException("bad move options chunkBytes=" + chunkBytes + " sstFileBytes=" + sstFileBytes);
    }
  }

  /** Unlimited bandwidth, 1 MiB chunks, 16 MiB SST files, 10 min catch-up, 15 s apply waits. */
  public static MoveOptions defaults() {
    return new MoveOptions(0, 1 << 20, 16L << 20, Duration.ofMinutes(10), Duration.ofSeconds(15));
  }
}
