package dev.rangekv.sim.partition;

import dev.rangekv.core.key.Key;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import java.util.stream.StreamSupport;

/**
 * Directory partitioning (seed 003): an explicit key-to-node table, with another scheme behind it
 * for every key the table does not name. Moving one key is a one-entry change: {@link #with}.
 */
public final class Directory implements Partitioner {
  private final Map<Key, Node> entries;
  private final Partitioner fallback;
  private final List<Node> nodes;

  public Directory(Map<Key, Node> entries, Partitioner fallback) {
    this.entries = Map.copyOf(entries);
    this.fallback = fallback;
    Map<String, Node> all = new LinkedHashMap<>();
    fallback.nodes().forEach(n -> all.put(n.name(), n));
    this.entries.values().forEach(n -> all.putIfAbsent(n.name(), n));
    this.nodes = List.copyOf(new ArrayList<>(all.values()));
  }

  /** A copy with {@code key} pinned to {@code node}. */
  public Directory with(Key key, Node node) {
    Map<Key, Node> copy = new HashMap<>(entries);
    copy.put(key, node);
    return new Directory(copy, fallback);
  }

  public Map<Key, Node> entries() {
    return entries;
  }

  public Partitioner fallback() {
    return fallback;
  }

  @Override
  public Node owner(Key key) {
    Node n = entries.get(key);
    return n != null ? n : fallback.owner(key);
  }

  @Override
  public List<Node> nodes() {
    return nodes;
  }

  @Override
  public Iterator<Node> candidates(Key key) {
    Node pinned = entries.get(key);
    if (pinned == null) {
      return fallback.candidates(key);
    }
    Iterable<Node> rest = () -> fallback.candidates(key);
    return Stream.concat(Stream.of(pinned), StreamSupport.stream(rest.spliterator(), false)).iterator();
  }
}
