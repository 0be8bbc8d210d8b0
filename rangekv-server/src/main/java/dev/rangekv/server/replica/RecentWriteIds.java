package dev.rangekv.server.replica;

import com.google.protobuf.ByteString;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * One range's dedupe table as stored, held in memory for the clients that wrote to it recently: per
 * client its floor and the ids of every record it has on the range, so that a new write needs no store
 * read (the record it looks for is known absent) and a trim no scan (it knows which records it deletes).
 * A client not held is loaded from the store (one scan) at its next write; so a cleared or evicted entry
 * only costs a load, while a wrong one would break at-most-once: whatever changes the range's local
 * fields other than this range's own client writes clears it ({@link #invalidate}).
 *
 * <p>Bounded: at most {@link #MAX_CLIENTS} clients and, beyond the client being written, about {@link
 * #MAX_IDS} ids; the least recently written clients are dropped first. Used by the range's apply thread
 * (one entry at a time); {@link #invalidate} may be called from any thread.
 */
final class RecentWriteIds {
  /** Clients held per range. */
  static final int MAX_CLIENTS = 64;
  /** Ids held per range, over all clients but the one being loaded. */
  static final int MAX_IDS = 1 << 13;

  /** One client's state on the range, exactly as stored (plus the current entry's changes). */
  static final class Client {
    /** The prefix of the client's field names ({@code DedupeTable.clientPart}). */
    final String prefix;
    final SortedIds ids;
    long floor;

    Client(String prefix, long floor, SortedIds ids) {
      this.prefix = prefix;
      this.floor = floor;
      this.ids = ids;
    }
  }

  private final LinkedHashMap<ByteString, Client> clients = new LinkedHashMap<>(16, 0.75f, true);
  private final int maxClients;
  private final int maxIds;
  private volatile boolean stale;

  RecentWriteIds() {
    this(MAX_CLIENTS, MAX_IDS);
  }

  /** Bounds other than the defaults: tests make eviction happen. */
  RecentWriteIds(int maxClients, int maxIds) {
    this.maxClients = maxClients;
    this.maxIds = maxIds;
  }

  /** The client's held state, loaded with {@code load} (and held) when it is not held. */
  Client client(ByteString clientId, java.util.function.Function<ByteString, Client> load) {
    if (stale) {
      stale = false;
      clients.clear();
    }
    Client c = clients.get(clientId);
    return c != null ? c : hold(clientId, load.apply(clientId));
  }

  /** Holds {@code loaded} for {@code clientId}, dropping the least recently written clients over the bounds. */
  private Client hold(ByteString clientId, Client loaded) {
    clients.put(clientId, loaded);
    long held = 0;
    for (Client c : clients.values()) {
      held += c.ids.size();
    }
    Iterator<Map.Entry<ByteString, Client>> oldest = clients.entrySet().iterator();
    while (clients.size() > 1 && (clients.size() > maxClients || held - loaded.ids.size() > maxIds)) {
      Map.Entry<ByteString, Client> e = oldest.next();
      if (e.getValue() != loaded) {
        held -= e.getValue().ids.size();
        oldest.remove();
      }
    }
    return loaded;
  }

  /** Forget everything: the range's stored dedupe fields changed other than through its own client writes. */
  void invalidate() {
    stale = true;
  }
}
