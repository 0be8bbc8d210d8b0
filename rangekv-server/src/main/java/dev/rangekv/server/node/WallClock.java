package dev.rangekv.server.node;

/**
 * The node's wall clock: the time of day by which its dormancy idles ranges and its meta replica's
 * controller stamps heartbeats and reports and judges nodes live or dead. Every such read goes through
 * {@link #millis()}, one place a test can shift a single node's clock (the CLI tests' clock agent, in
 * {@code ClockFaultIT}). Leases and elections never read it: Raft measures them on a monotonic clock.
 * Thread-safe (stateless).
 */
public final class WallClock {
  private WallClock() {}

  /** Milliseconds since the epoch, as {@link System#currentTimeMillis()}. */
  public static long millis() {
    return System.currentTimeMillis();
  }
}
