package dev.rangekv.cli;

import dev.rangekv.server.node.LocalCluster;
import dev.rangekv.server.node.RaftTuning;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * A one-node in-JVM cluster for one CLI test class (register it as a static {@code @RegisterExtension}
 * field): started before the class's tests on a free loopback port, closed and deleted after them.
 */
public final class OneNodeCluster implements BeforeAllCallback, AfterAllCallback {
  private Path dir;
  private LocalCluster cluster;

  @Override
  public void beforeAll(ExtensionContext context) throws IOException {
    dir = Files.createTempDirectory("rangekv-cli-test");
    cluster = LocalCluster.start(1, dir.resolve("cluster"), RaftTuning.forTests());
  }

  @Override
  public void afterAll(ExtensionContext context) throws IOException {
    try {
      cluster.close();
    } finally {
      try (Stream<Path> paths = Files.walk(dir)) {
        for (Path p : paths.sorted(Comparator.reverseOrder()).toList()) {
          Files.deleteIfExists(p);
        }
      }
    }
  }

  /** The node's client address. */
  public String address() {
    return cluster.config(0).clientAddress();
  }

  /** A scratch directory of this class's own (deleted with the cluster). */
  public Path dir() {
    return dir;
  }

  /** Runs the command with {@code args} plus {@code --cluster <the node>}. */
  public CliRun run(String... args) {
    return CliRun.of(withCluster(args));
  }

  /** As {@link #run}, through picocli only (never the fast path of get/put/del/scan). */
  public CliRun runPicocli(String... args) {
    return CliRun.picocli(withCluster(args));
  }

  private String[] withCluster(String... args) {
    List<String> all = new ArrayList<>(List.of(args));
    all.add("--cluster");
    all.add(address());
    return all.toArray(String[]::new);
  }
}
