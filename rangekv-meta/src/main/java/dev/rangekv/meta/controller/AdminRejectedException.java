package dev.rangekv.meta.controller;

/**
 * An admin call refused before anything was done: unknown range or node, a split key outside the
 * range, a merge without a right neighbour. Answered as {@code INVALID_ARGUMENT} naming {@link #limit()}.
 */
public final class AdminRejectedException extends IllegalArgumentException {
  private final String limit;

  public AdminRejectedException(String limit, String message) {
    super(message);
    this.limit = limit;
  }

  /** The rule or field broken, e.g. {@code range_id}, {@code split_key}, {@code node_id}, {@code merge}. */
  public String limit() {
    return limit;
  }
}
