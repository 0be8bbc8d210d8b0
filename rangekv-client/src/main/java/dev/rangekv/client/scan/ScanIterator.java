package dev.rangekv.client.scan;

import dev.rangekv.client.KeyValue;
import dev.rangekv.client.routing.Await;
import java.util.ArrayDeque;
import java.util.Iterator;
import java.util.NoSuchElementException;
import java.util.Optional;

/**
 * An ordered scan, fetched lazily one page at a time when the caller runs out of entries. {@link
 * #cursor()} tells where it stopped, to resume later. Not thread-safe; {@code hasNext} may block for one
 * page (up to the client's timeout) and throws the call's {@code RangeKvException}.
 */
public final class ScanIterator implements Iterator<KeyValue> {
  private final Scanner scanner;
  private final int pageSize;
  private final ArrayDeque<KeyValue> buffer = new ArrayDeque<>();
  private ScanState state;
  private KeyValue last;
  private int pagesFetched;

  public ScanIterator(Scanner scanner, ScanState start, int pageSize) {
    this.scanner = scanner;
    this.state = start;
    this.pageSize = pageSize;
  }

  @Override
  public boolean hasNext() {
    while (buffer.isEmpty() && !state.done()) {
      long deadline = scanner.deadline();
      Scanner.Page page = Await.result(scanner.page(state, pageSize, deadline), deadline);
      pagesFetched++;
      buffer.addAll(page.entries());
      state = page.next();
    }
    return !buffer.isEmpty();
  }

  @Override
  public KeyValue next() {
    if (!hasNext()) {
      throw new NoSuchElementException();
    }
    last = buffer.poll();
    return last;
  }

  /** The cursor after the last entry returned; empty before the first. */
  public Optional<ScanCursor> cursor() {
    return last == null ? Optional.empty() : Optional.of(new ScanCursor(last.key(), state.reverse()));
  }

  /** Pages fetched so far (a measure of laziness). */
  public int pagesFetched() {
    return pagesFetched;
  }
}
