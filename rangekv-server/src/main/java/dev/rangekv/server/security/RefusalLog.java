package dev.rangekv.server.security;

import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;
import java.util.function.LongSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** One WARN line per refused peer per minute (a misconfigured client retries many times a second). Thread-safe. */
public final class RefusalLog {
  private static final Logger log = LoggerFactory.getLogger(RefusalLog.class);
  private static final long WINDOW_NANOS = 60_000_000_000L;
  /** Entries are pruned when the map grows past this, so a scan of many addresses cannot grow it without bound. */
  private static final int MAX_PEERS = 10_000;
  private final LongSupplier nanoClock;
  private final ConcurrentMap<String, Long> lastLogged = new ConcurrentHashMap<>();

  public RefusalLog(LongSupplier nanoClock) {
    this.nanoClock = nanoClock;
  }

  public void refused(String port, String peer, String who, String method, String reason) {
    long now = nanoClock.getAsLong();
    boolean[] warn = {false};
    lastLogged.compute(port + "|" + peer + "|" + who, (k, last) -> {
      if (last == null || now - last >= WINDOW_NANOS) {
        warn[0] = true;
        return now;
      }
      return last;
    });
    if (lastLogged.size() > MAX_PEERS) {
      lastLogged.values().removeIf(t -> now - t >= WINDOW_NANOS);
    }
    if (warn[0]) {
      log.warn("refused a call port={} peer={} identity={} method={} reason={} (more from this peer in the next minute"
          + " are not logged)", port, peer, who, method, reason);
    }
  }
}
