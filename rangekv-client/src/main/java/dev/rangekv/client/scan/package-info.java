/**
 * Scans across range boundaries: the pure paging state ({@link ScanState}: plan the next page from the
 * cache, advance by the last key received), resumable cursors ({@link ScanCursor}), the k-way merge,
 * and the lazy iterators the client returns. Cursors are the last key returned, never a range id plus
 * an offset (docs/architecture.md, invariant 7). Nothing outside the client depends on it.
 */
package dev.rangekv.client.scan;
