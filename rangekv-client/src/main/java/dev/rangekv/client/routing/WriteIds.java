package dev.rangekv.client.routing;

import com.google.protobuf.ByteString;
import dev.rangekv.proto.WriteId;
import java.security.SecureRandom;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Write ids of one client: 16 random bytes chosen once, and a request id that grows per write. A
 * retry reuses its id, so the node applies the write at most once. Thread-safe.
 */
public final class WriteIds {
  private final ByteString clientId;
  private final AtomicLong requestIds = new AtomicLong();

  public WriteIds() {
    byte[] id = new byte[16];
    new SecureRandom().nextBytes(id);
    this.clientId = ByteString.copyFrom(id);
  }

  public WriteId next() {
    return WriteId.newBuilder().setClientId(clientId).setRequestId(requestIds.incrementAndGet()).build();
  }
}
