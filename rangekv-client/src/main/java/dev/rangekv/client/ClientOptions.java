package dev.rangekv.client;

import dev.rangekv.client.routing.RetryPolicy;
import java.time.Duration;

/**
 * Client settings. Immutable.
 *
 * @param timeout the deadline of each call (a scan: of each page), retries included
 * @param attemptTimeout the longest one attempt may take before the client tries elsewhere (capped by
 *     the call's remaining time); keeps one dead node from eating the whole deadline
 * @param retry attempts and backoff
 * @param refreshTimeout deadline of one range-listing call to one node
 */
public record ClientOptions(Duration timeout, Duration attemptTimeout, RetryPolicy retry, Duration refreshTimeout) {

  public ClientOptions {
    if (timeout.isNegative() || timeout.isZero() || attemptTimeout.isNegative() || attemptTimeout.isZero()) {
      throw new IllegalArgumentException("timeouts must be positive: timeout=" + timeout + " attemptTimeout=" + attemptTimeout);
    }
  }

  /** 10 s per call, 3 s per attempt, 10 attempts, 2 s per range listing. */
  public static ClientOptions defaults() {
    return new ClientOptions(Duration.ofSeconds(10), Duration.ofSeconds(3), RetryPolicy.defaults(), Duration.ofSeconds(2));
  }

  public ClientOptions withTimeout(Duration t) {
    return new ClientOptions(t, attemptTimeout, retry, refreshTimeout);
  }

  public ClientOptions withAttemptTimeout(Duration t) {
    return new ClientOptions(timeout, t, retry, refreshTimeout);
  }

  public ClientOptions withRetry(RetryPolicy r) {
    return new ClientOptions(timeout, attemptTimeout, r, refreshTimeout);
  }
}
