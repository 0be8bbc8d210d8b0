package dev.rangekv.client;

import dev.rangekv.client.scan.ScanCursor;
import java.util.List;
import java.util.Optional;

/**
 * One page of a scan: its entries, in scan order, and the cursor to pass to the next request (empty
 * when the scan is complete). Immutable.
 */
public record ScanPageResult(List<KeyValue> entries, Optional<ScanCursor> next) {
  public ScanPageResult {
    entries = List.copyOf(entries);
  }
}
