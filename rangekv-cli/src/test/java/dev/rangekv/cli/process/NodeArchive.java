package dev.rangekv.cli.process;

import dev.rangekv.cli.CliRun;
import dev.rangekv.server.node.NodeConfig;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * A class data sharing archive for the test node processes, made once per build beside the shaded jar
 * ({@code target/rangekv-node.jsa}): a training node bootstraps, takes a write and stops with SIGTERM,
 * and the JVM writes every class it loaded ({@code -XX:ArchiveClassesAtExit}). A node started with it
 * skips parsing and verifying those classes: bootstrapping took 2.4 s of CPU instead of 3.7 s (C1 only,
 * serial GC, 3 runs each alone on a 2-core box), and the process ITs start about 30 nodes. The two
 * failsafe forks share one archive: a file lock lets one train while the other waits. When training
 * fails the nodes simply run without it.
 *
 * <p>Implementation notes: CDS archives only classes from jar files, so nodes that use it run the
 * shaded jar, not the test class path of directories; an archive older than the jar is made again (the
 * JVM would refuse it anyway, having recorded the jar's size and time).
 */
final class NodeArchive {
  private static Optional<Path> archive;

  private NodeArchive() {}

  /** The archive for nodes running {@code jar}, made on the first call of this JVM if no fresh one exists. */
  static synchronized Optional<Path> forJar(Path jar) {
    if (archive == null) {
      archive = make(jar);
    }
    return archive;
  }

  @SuppressWarnings("try") // the lock is held for the try block, never referenced in it
  private static Optional<Path> make(Path jar) {
    Path jsa = jar.resolveSibling("rangekv-node.jsa");
    try (FileChannel lockFile = FileChannel.open(jar.resolveSibling("rangekv-node.jsa.lock"), StandardOpenOption.CREATE,
        StandardOpenOption.WRITE);
         FileLock held = lockFile.lock()) {
      if (fresh(jsa, jar)) {
        return Optional.of(jsa);
      }
      Path tmp = jar.resolveSibling("rangekv-node.jsa.tmp");
      Files.deleteIfExists(tmp);
      if (train(jar, tmp)) {
        Files.move(tmp, jsa, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
        return Optional.of(jsa);
      }
      return Optional.empty();
    } catch (IOException e) {
      throw new UncheckedIOException("the node CDS archive beside " + jar, e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return Optional.empty();
    }
  }

  private static boolean fresh(Path jsa, Path jar) throws IOException {
    return Files.exists(jsa) && Files.getLastModifiedTime(jsa).compareTo(Files.getLastModifiedTime(jar)) > 0;
  }

  /** One node bootstraps, takes a put and stops with SIGTERM; true when its JVM wrote {@code tmp}. */
  private static boolean train(Path jar, Path tmp) throws IOException, InterruptedException {
    Path dir = Files.createTempDirectory("rangekv-node-cds-");
    String client = "127.0.0.1:" + NodeConfig.freePort();
    List<String> cmd = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString()));
    cmd.addAll(CliProcess.NODE_JVM);
    cmd.addAll(List.of("-XX:ArchiveClassesAtExit=" + tmp, "-cp", jar.toString(), "dev.rangekv.cli.RangeKvCommand",
        "start", "--node-id", "n1", "--listen", client, "--raft-listen", "127.0.0.1:" + NodeConfig.freePort(),
        "--http-addr", "127.0.0.1:" + NodeConfig.freePort(), "--data-dir", dir.resolve("n1").toString(), "--insecure"));
    try (CliProcess node = CliProcess.run(dir.resolve("node.log"), cmd)) {
      node.awaitOutput(o -> o.contains("bootstrapped a new cluster"), Duration.ofSeconds(90), "the CDS training node");
      CliRun.of("put", "cds-training", "1", "--cluster", client, "--timeout", "30s"); // the write path's classes
      node.terminate(); // SIGTERM: the JVM exits normally and writes the archive
      node.awaitExit(Duration.ofSeconds(60));
      return Files.exists(tmp);
    } catch (AssertionError e) {
      return false; // the node died or hung: the test nodes run without the archive
    } finally {
      deleteTree(dir);
    }
  }

  private static void deleteTree(Path dir) throws IOException {
    try (var paths = Files.walk(dir)) {
      for (Path path : paths.sorted(java.util.Comparator.reverseOrder()).toList()) {
        Files.deleteIfExists(path);
      }
    }
  }
}
