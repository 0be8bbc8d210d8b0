package dev.rangekv.client.scan;

import dev.rangekv.client.KeyValue;
import dev.rangekv.client.routing.Await;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.NoSuchElementException;
import java.util.concurrent.CompletableFuture;

/**
 * A scan whose pieces (one per range at planning time, in key order, or reverse key order) are read
 * concurrently, up to {@code parallelism} pieces ahead of the caller, and yielded in order, so results
 * are still in key order. Each piece is itself a resilient scan ({@link Scanner#collect}): a split
 * under it re-plans only that piece's unfinished part. Memory: up to {@code parallelism} whole pieces.
 * Not thread-safe.
 */
public final class ParallelScanIterator implements Iterator<KeyValue> {
  private final Scanner scanner;
  private final List<ScanState> pieces;
  private final int parallelism;
  private final int pageSize;
  private final List<CompletableFuture<List<KeyValue>>> started = new ArrayList<>();
  private Iterator<KeyValue> current = java.util.Collections.emptyIterator();
  private int nextPiece;
  private long remaining;

  /** {@code limit} 0 means unlimited. */
  public ParallelScanIterator(Scanner scanner, List<ScanState> pieces, int parallelism, int pageSize, long limit) {
    this.scanner = scanner;
    this.pieces = List.copyOf(pieces);
    this.parallelism = parallelism;
    this.pageSize = pageSize;
    this.remaining = limit == 0 ? -1 : limit;
  }

  private void startUpTo(int index) {
    while (started.size() <= index && started.size() < pieces.size()) {
      started.add(scanner.collect(pieces.get(started.size()), pageSize));
    }
  }

  @Override
  public boolean hasNext() {
    if (remaining == 0) {
      return false;
    }
    while (!current.hasNext() && nextPiece < pieces.size()) {
      startUpTo(nextPiece + parallelism - 1);
      CompletableFuture<List<KeyValue>> piece = started.get(nextPiece);
      started.set(nextPiece, null); // let the finished piece's entries go once consumed
      nextPiece++;
      current = Await.result(piece, scanner.deadline()).iterator();
    }
    return current.hasNext();
  }

  @Override
  public KeyValue next() {
    if (!hasNext()) {
      throw new NoSuchElementException();
    }
    if (remaining > 0) {
      remaining--;
    }
    return current.next();
  }
}
