package dev.rangekv.server.node;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The client addresses of the meta range's peers as this node learned them, one {@code nodeId=address}
 * line each in {@code <data dir>/meta-peer-addresses}: on the multi-raft engine the meta group's messages
 * go to a peer's client port, and a meta replica may share no range with its peers (a replica being
 * added, whose state is still empty; one restarted before its state caught up), so the replica records
 * do not name them. Learned when the meta group is created or prepared here and from the meta state's
 * node records. A hint only: a missing entry costs the messages to that peer until it is learned.
 * Thread-safe.
 */
final class MetaPeerAddresses {
  private static final Logger log = LoggerFactory.getLogger(MetaPeerAddresses.class);
  private static final String NAME = "meta-peer-addresses";

  private final Path dataDir;
  private volatile Map<String, String> known;

  MetaPeerAddresses(Path dataDir) {
    this.dataDir = dataDir;
    this.known = read(dataDir.resolve(NAME));
  }

  Optional<String> addressOf(String nodeId) {
    String a = known.get(nodeId);
    return a == null || a.isEmpty() ? Optional.empty() : Optional.of(a);
  }

  /** Adds or updates {@code addresses} (node id to client address); writes the file when anything changed. */
  synchronized void learn(Map<String, String> addresses) {
    Map<String, String> next = new TreeMap<>(known);
    addresses.forEach((id, a) -> {
      if (!id.isEmpty() && !a.isEmpty()) {
        next.put(id, a);
      }
    });
    if (next.equals(known)) {
      return;
    }
    known = Map.copyOf(next);
    StringBuilder sb = new StringBuilder();
    next.forEach((id, a) -> sb.append(id).append('=').append(a).append('\n'));
    Path tmp = dataDir.resolve(NAME + ".tmp");
    try {
      Files.writeString(tmp, sb.toString(), StandardCharsets.UTF_8);
      Files.move(tmp, dataDir.resolve(NAME), StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
    } catch (IOException e) {
      log.warn("meta peer addresses not written dir={} error={}", dataDir, e.toString()); // a hint: learned again
    }
  }

  private static Map<String, String> read(Path file) {
    Map<String, String> out = new TreeMap<>();
    try {
      if (Files.exists(file)) {
        for (String line : Files.readAllLines(file, StandardCharsets.UTF_8)) {
          int eq = line.indexOf('=');
          if (eq > 0) {
            out.put(line.substring(0, eq).trim(), line.substring(eq + 1).trim());
          }
        }
      }
    } catch (IOException e) {
      log.warn("meta peer addresses unreadable, ignored file={} error={}", file, e.toString());
    }
    return Map.copyOf(out);
  }
}
