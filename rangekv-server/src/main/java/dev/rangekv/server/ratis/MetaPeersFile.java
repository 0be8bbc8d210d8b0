package dev.rangekv.server.ratis;

import dev.rangekv.meta.ratis.MetaGroups;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.apache.ratis.protocol.RaftPeer;

/**
 * The meta group's peers as this node created it, one {@code nodeId=raftAddress} line each, in
 * {@code <data dir>/meta-peers}: read at start so Ratis reopens the meta replica with its configuration.
 */
public final class MetaPeersFile {
  private static final String NAME = "meta-peers";

  private MetaPeersFile() {}

  public static void write(Path dataDir, List<RaftPeer> peers) throws IOException {
    StringBuilder sb = new StringBuilder();
    for (RaftPeer p : peers) {
      sb.append(p.getId()).append('=').append(p.getAddress()).append('\n');
    }
    Path tmp = dataDir.resolve(NAME + ".tmp");
    Files.writeString(tmp, sb.toString(), StandardCharsets.UTF_8);
    Files.move(tmp, dataDir.resolve(NAME), StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
  }

  /** Forgets the peers: this node's meta replica was removed. */
  public static void delete(Path dataDir) {
    try {
      Files.deleteIfExists(dataDir.resolve(NAME));
    } catch (IOException e) {
      throw new UncheckedIOException("deleting " + dataDir.resolve(NAME), e);
    }
  }

  public static Optional<List<RaftPeer>> read(Path dataDir) {
    Path file = dataDir.resolve(NAME);
    if (!Files.exists(file)) {
      return Optional.empty();
    }
    try {
      List<RaftPeer> peers = new ArrayList<>();
      for (String line : Files.readAllLines(file, StandardCharsets.UTF_8)) {
        int eq = line.indexOf('=');
        if (eq > 0) {
          peers.add(MetaGroups.peer(line.substring(0, eq), line.substring(eq + 1)));
        }
      }
      return Optional.of(peers);
    } catch (IOException e) {
      throw new UncheckedIOException("reading " + file, e);
    }
  }
}
