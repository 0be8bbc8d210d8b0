package dev.rangekv.client.scan;

import java.util.Comparator;
import java.util.Iterator;
import java.util.List;
import java.util.NoSuchElementException;
import java.util.PriorityQueue;

/**
 * Merges k iterators, each already sorted by {@code order}, into one sorted iterator, lazily: it holds
 * one head per source and pulls a source only when its head was taken. Ties go to the lower source
 * index, so the merge is stable. O(log k) per element. Not thread-safe.
 *
 * @param <T> the element type
 */
public final class KWayMerge<T> implements Iterator<T> {
  private record Head<T>(T value, int source) {}

  private final List<? extends Iterator<? extends T>> sources;
  private final PriorityQueue<Head<T>> heads;
  private boolean primed;

  public KWayMerge(List<? extends Iterator<? extends T>> sources, Comparator<? super T> order) {
    this.sources = List.copyOf(sources);
    Comparator<Head<T>> byValue = (a, b) -> order.compare(a.value(), b.value());
    this.heads = new PriorityQueue<>(Math.max(1, sources.size()), byValue.thenComparingInt(Head::source));
  }

  private void prime() {
    if (!primed) {
      primed = true;
      for (int i = 0; i < sources.size(); i++) {
        pull(i);
      }
    }
  }

  private void pull(int source) {
    Iterator<? extends T> it = sources.get(source);
    if (it.hasNext()) {
      heads.add(new Head<>(it.next(), source));
    }
  }

  @Override
  public boolean hasNext() {
    prime();
    return !heads.isEmpty();
  }

  @Override
  public T next() {
    prime();
    Head<T> h = heads.poll();
    if (h == null) {
      throw new NoSuchElementException();
    }
    pull(h.source());
    return h.value();
  }
}
