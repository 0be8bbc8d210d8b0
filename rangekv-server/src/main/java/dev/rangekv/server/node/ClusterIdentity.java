package dev.rangekv.server.node;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;

/**
 * Which cluster a data directory belongs to and which node it is: {@code <data dir>/identity}, two
 * {@code name=value} lines, written once (before anything else of a new node) and never changed. A data
 * directory with an identity never bootstraps a new cluster again, only resumes; a node refuses a
 * directory of another node id and node-to-node calls from another cluster.
 *
 * @param clusterId the cluster's random id, made when its first node bootstrapped it
 * @param nodeId the node this directory belongs to
 */
public record ClusterIdentity(String clusterId, String nodeId) {
  /** The file's name inside the data directory. */
  public static final String FILE = "identity";

  public ClusterIdentity {
    if (clusterId.isBlank() || !clusterId.matches("[A-Za-z0-9_.-]+")) {
      throw new IllegalArgumentException("cluster id '" + clusterId + "' must be letters, digits, '_', '.', '-'");
    }
    if (nodeId.isBlank() || !nodeId.matches("[A-Za-z0-9_.-]+")) {
      throw new IllegalArgumentException("node id '" + nodeId + "' must be letters, digits, '_', '.', '-'");
    }
  }

  /** The identity of the first node of a new cluster (a fresh random cluster id). */
  public static ClusterIdentity newCluster(String nodeId) {
    return new ClusterIdentity(UUID.randomUUID().toString(), nodeId);
  }

  /** The identity stored in {@code dataDir}, if any; a file that is there but unreadable fails. */
  public static Optional<ClusterIdentity> read(Path dataDir) {
    Path file = dataDir.resolve(FILE);
    if (!Files.exists(file)) {
      return Optional.empty();
    }
    try {
      Map<String, String> values = new HashMap<>();
      for (String line : Files.readAllLines(file, StandardCharsets.UTF_8)) {
        int eq = line.indexOf('=');
        if (eq > 0) {
          values.put(line.substring(0, eq).trim(), line.substring(eq + 1).trim());
        }
      }
      String cluster = values.get("cluster-id");
      String node = values.get("node-id");
      if (cluster == null || node == null) {
        throw new IllegalStateException("identity file " + file + " is damaged: it must name cluster-id and node-id");
      }
      return Optional.of(new ClusterIdentity(cluster, node));
    } catch (IOException e) {
      throw new UncheckedIOException("reading identity file " + file, e);
    }
  }

  /**
   * Writes this identity into {@code dataDir} (created if absent) durably: a temporary file forced to
   * disk, renamed over, then the directory forced, so a crash leaves the old state or the whole file.
   */
  public void write(Path dataDir) throws IOException {
    Files.createDirectories(dataDir);
    Path tmp = dataDir.resolve(FILE + ".tmp");
    byte[] text = ("cluster-id=" + clusterId + "\nnode-id=" + nodeId + "\n").getBytes(StandardCharsets.UTF_8);
    try (FileChannel ch = FileChannel.open(tmp, StandardOpenOption.CREATE, StandardOpenOption.WRITE,
        StandardOpenOption.TRUNCATE_EXISTING)) {
      ByteBuffer buf = ByteBuffer.wrap(text);
      while (buf.hasRemaining()) {
        ch.write(buf);
      }
      ch.force(true);
    }
    try {
      Files.move(tmp, dataDir.resolve(FILE), StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
    } catch (AtomicMoveNotSupportedException e) {
      Files.move(tmp, dataDir.resolve(FILE), StandardCopyOption.REPLACE_EXISTING);
    }
    forceDirectory(dataDir);
  }

  private static void forceDirectory(Path dir) {
    try (FileChannel ch = FileChannel.open(dir, StandardOpenOption.READ)) {
      ch.force(true);
    } catch (IOException e) {
      // some platforms cannot open a directory for fsync; the rename is then as durable as they allow
    }
  }

  /**
   * Fails unless this directory belongs to {@code expectedNodeId}: a node started on another node's data
   * directory would serve that node's replicas under the wrong name.
   */
  public void requireNode(String expectedNodeId, Path dataDir) {
    if (!nodeId.equals(expectedNodeId)) {
      throw new IdentityMismatchException("data directory " + dataDir + " belongs to node " + nodeId + " of cluster "
          + clusterId + ", not to node " + expectedNodeId + ": refused (nothing changed)");
    }
  }
}
