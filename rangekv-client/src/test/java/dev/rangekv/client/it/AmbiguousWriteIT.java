package dev.rangekv.client.it;

import static org.assertj.core.api.Assertions.assertThat;

import dev.rangekv.client.AmbiguousResultException;
import dev.rangekv.client.CasResult;
import dev.rangekv.client.RangeKvClient;
import dev.rangekv.client.RangeKvException;
import dev.rangekv.core.key.Key;
import dev.rangekv.testkit.Await;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * A leader killed while compare-and-set increments run: every increment either succeeds exactly once
 * or surfaces as ambiguous (or as a definite failure) — never applied twice. A blind retry under a new
 * write id would re-apply a CAS that already applied, see its check fail, and report "not applied":
 * the final value would then exceed acknowledged + ambiguous increments.
 */
class AmbiguousWriteIT {
  @TempDir Path dir;

  static byte[] encode(long v) {
    return ByteBuffer.allocate(8).putLong(v).array();
  }

  static long decode(Optional<byte[]> v) {
    return v.map(b -> ByteBuffer.wrap(b).getLong()).orElse(0L);
  }

  @Test
  @Timeout(value = 150, unit = TimeUnit.SECONDS)
  void writesToAKilledLeader_areAppliedAtMostOnce_andUnknownOutcomesAreAmbiguous() throws Exception {
    Key counter = Key.utf8("counter");
    try (TestCluster tc = new TestCluster(dir); RangeKvClient client = tc.client()) {
      client.put(counter, encode(0));
      AtomicLong acknowledged = new AtomicLong();
      AtomicInteger ambiguous = new AtomicInteger();
      AtomicInteger definiteFailures = new AtomicInteger();
      AtomicInteger done = new AtomicInteger();
      Thread incrementer = new Thread(() -> {
        long expected = 0;
        for (int i = 0; i < 150; i++) {
          try {
            CasResult r = client.compareAndSet(counter, Optional.of(encode(expected)), Optional.of(encode(expected + 1)));
            if (r.succeeded()) {
              acknowledged.incrementAndGet();
              expected++;
            } else {
              expected = decode(r.current());
            }
          } catch (AmbiguousResultException e) {
            ambiguous.incrementAndGet();
            expected = decode(readBack(client, counter));
          } catch (RangeKvException e) {
            definiteFailures.incrementAndGet();
            expected = decode(readBack(client, counter));
          }
          done.incrementAndGet();
        }
      }, "incrementer");
      incrementer.start();
      // polling a counter: no event to await
      Await.until(java.time.Duration.ofSeconds(60), "30 increments done (or the incrementer ended)",
          () -> done.get() >= 30 || !incrementer.isAlive());
      tc.cluster.stop(tc.leaderIndexOf(counter)); // mid-run, with a request likely in flight
      incrementer.join();
      long value = decode(readBack(client, counter));
      assertThat(value).as("acknowledged=%d ambiguous=%d definite=%d", acknowledged.get(), ambiguous.get(),
          definiteFailures.get()).isBetween(acknowledged.get(), acknowledged.get() + ambiguous.get());
      assertThat(acknowledged.get()).isGreaterThan(30);
    }
  }

  private static Optional<byte[]> readBack(RangeKvClient client, Key key) {
    for (int i = 0; ; i++) {
      try {
        return client.get(key);
      } catch (RangeKvException e) {
        if (i > 5) {
          throw e;
        }
      }
    }
  }
}
