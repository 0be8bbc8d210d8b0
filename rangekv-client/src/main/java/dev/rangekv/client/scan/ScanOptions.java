package dev.rangekv.client.scan;

import java.util.Optional;

/**
 * How a scan runs. Immutable; build with {@link #defaults()} and the {@code with*} methods.
 *
 * @param limit the most entries returned; 0 means no limit
 * @param reverse descending key order when true
 * @param pageSize entries fetched per request (the last page of a range may be shorter)
 * @param after resume after this cursor's key (exclusive), in the cursor's direction
 * @param parallelism pieces fetched concurrently by a parallel scan
 */
public record ScanOptions(long limit, boolean reverse, int pageSize, Optional<ScanCursor> after, int parallelism) {

  public ScanOptions {
    if (limit < 0) {
      throw new IllegalArgumentException("limit must be >= 0, got " + limit);
    }
    if (pageSize < 1) {
      throw new IllegalArgumentException("pageSize must be >= 1, got " + pageSize);
    }
    if (parallelism < 1) {
      throw new IllegalArgumentException("parallelism must be >= 1, got " + parallelism);
    }
    if (after.isPresent() && after.get().reverse() != reverse) {
      throw new IllegalArgumentException("cursor direction reverse=" + after.get().reverse()
          + " differs from the scan's reverse=" + reverse);
    }
  }

  /** No limit, ascending, 256 entries per page, 4 pieces in parallel. */
  public static ScanOptions defaults() {
    return new ScanOptions(0, false, 256, Optional.empty(), 4);
  }

  public ScanOptions withLimit(long n) {
    return new ScanOptions(n, reverse, pageSize, after, parallelism);
  }

  public ScanOptions withReverse(boolean r) {
    return new ScanOptions(limit, r, pageSize, after.filter(c -> c.reverse() == r), parallelism);
  }

  public ScanOptions withPageSize(int n) {
    return new ScanOptions(limit, reverse, n, after, parallelism);
  }

  /** Resumes after {@code cursor}; the direction follows the cursor's. */
  public ScanOptions withAfter(ScanCursor cursor) {
    return new ScanOptions(limit, cursor.reverse(), pageSize, Optional.of(cursor), parallelism);
  }

  public ScanOptions withParallelism(int n) {
    return new ScanOptions(limit, reverse, pageSize, after, n);
  }
}
