package dev.rangekv.storage;

/**
 * Approximate logical size of a span: raw key and value bytes (uncompressed, in files and memtables),
 * and an estimated key count. Estimates, not exact figures: good for split and merge decisions, not
 * for accounting.
 */
public record SpanSize(long approximateBytes, long approximateKeys) {
  public SpanSize {
    if (approximateBytes < 0 || approximateKeys < 0) {
      throw new IllegalArgumentException("negative size bytes=" + approximateBytes + " keys=" + approximateKeys);
    }
  }
}
