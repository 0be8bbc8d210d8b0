package dev.rangekv.client;

import dev.rangekv.client.routing.RetryPolicy;
import dev.rangekv.proto.tls.TlsFiles;
import java.time.Duration;
import java.util.Objects;
import java.util.Optional;

/**
 * Client settings. Immutable.
 *
 * @param timeout the deadline of each call (a scan: of each page), retries included
 * @param attemptTimeout the longest one attempt may take before the client tries elsewhere (capped by
 *     the call's remaining time); keeps one dead node from eating the whole deadline
 * @param retry backoff and the attempt cap (a guard against a corrupt cache: the deadline is the bound,
 *     so a leadership change or a range still starting costs latency, not an error)
 * @param refreshTimeout deadline of one range-listing call to one node
 * @param tls the client's certificate, key and the cluster's CA (PEM files) for a secure cluster; empty:
 *     plaintext, for an insecure cluster
 * @param watchRanges keep a {@code WatchRanges} stream open to the meta range, so splits and moves reach
 *     the cache before a request meets them. Off by default: routing is correct without it (a RANGE_MOVED
 *     answer carries both halves of a split, so a stale route costs one extra RPC, not a lookup), and the
 *     meta leader would hold one stream per client, a cost that grows with the number of clients rather
 *     than with the rate of change. Turn it on for a few long-lived, latency-sensitive clients.
 */
public record ClientOptions(Duration timeout, Duration attemptTimeout, RetryPolicy retry, Duration refreshTimeout,
                            Optional<TlsFiles> tls, boolean watchRanges) {

  public ClientOptions {
    Objects.requireNonNull(tls, "tls");
    if (timeout.isNegative() || timeout.isZero() || attemptTimeout.isNegative() || attemptTimeout.isZero()) {
      throw new IllegalArgumentException("timeouts must be positive: timeout=" + timeout + " attemptTimeout=" + attemptTimeout);
    }
  }

  /** Plaintext options (an insecure cluster), without a watch stream. */
  public ClientOptions(Duration timeout, Duration attemptTimeout, RetryPolicy retry, Duration refreshTimeout) {
    this(timeout, attemptTimeout, retry, refreshTimeout, Optional.empty(), false);
  }

  /** Options without a watch stream. */
  public ClientOptions(Duration timeout, Duration attemptTimeout, RetryPolicy retry, Duration refreshTimeout,
      Optional<TlsFiles> tls) {
    this(timeout, attemptTimeout, retry, refreshTimeout, tls, false);
  }

  /** 10 s per call, 3 s per attempt, at most 100 attempts (backoff 10 ms doubling to 500 ms), 2 s per range listing. */
  public static ClientOptions defaults() {
    return new ClientOptions(Duration.ofSeconds(10), Duration.ofSeconds(3), RetryPolicy.defaults(), Duration.ofSeconds(2));
  }

  public ClientOptions withTimeout(Duration t) {
    return new ClientOptions(t, attemptTimeout, retry, refreshTimeout, tls, watchRanges);
  }

  public ClientOptions withAttemptTimeout(Duration t) {
    return new ClientOptions(timeout, t, retry, refreshTimeout, tls, watchRanges);
  }

  public ClientOptions withRetry(RetryPolicy r) {
    return new ClientOptions(timeout, attemptTimeout, r, refreshTimeout, tls, watchRanges);
  }

  /** Mutual TLS with {@code files} (e.g. {@code TlsFiles.client(certsDir, "alice")}). */
  public ClientOptions withTls(TlsFiles files) {
    return new ClientOptions(timeout, attemptTimeout, retry, refreshTimeout, Optional.of(files), watchRanges);
  }

  /** With (or without) a {@code WatchRanges} stream pushing map changes into the cache. */
  public ClientOptions withWatchRanges(boolean watch) {
    return new ClientOptions(timeout, attemptTimeout, retry, refreshTimeout, tls, watch);
  }
}
