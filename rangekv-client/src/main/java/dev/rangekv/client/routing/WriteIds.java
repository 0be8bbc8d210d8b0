package dev.rangekv.client.routing;

import com.google.protobuf.ByteString;
import dev.rangekv.proto.WriteId;
import java.security.SecureRandom;
import java.util.TreeSet;

/**
 * Write ids of one client: 16 random bytes chosen once, and a request id that grows per write. A
 * retry reuses its id, so the node applies the write at most once. Each id is in flight from {@link
 * #next} until {@link #finish}; every write carries the low-water mark (the smallest id in flight, or
 * the next id when none is), below which nodes may forget their dedupe records. Thread-safe.
 */
public final class WriteIds {
  private final ByteString clientId;
  private final TreeSet<Long> inFlight = new TreeSet<>();
  private long last;

  public WriteIds() {
    byte[] id = new byte[16];
    new SecureRandom().nextBytes(id);
    this.clientId = ByteString.copyFrom(id);
  }

  /** A new id, in flight until {@link #finish}. */
  public synchronized WriteId next() {
    long id = ++last;
    inFlight.add(id);
    return WriteId.newBuilder().setClientId(clientId).setRequestId(id).setLowWater(inFlight.first()).build();
  }

  /** {@code id} as it goes out again: with the current low-water mark. */
  public synchronized WriteId current(WriteId id) {
    return id.toBuilder().setLowWater(lowWater()).build();
  }

  /** The call that used {@code id} ended (it will never be sent again). */
  public synchronized void finish(WriteId id) {
    inFlight.remove(id.getRequestId());
  }

  /** Every id below this one has finished. */
  public synchronized long lowWater() {
    return inFlight.isEmpty() ? last + 1 : inFlight.first();
  }
}
