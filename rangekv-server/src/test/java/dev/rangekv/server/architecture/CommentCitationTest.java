package dev.rangekv.server.architecture;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * The operation packages explain themselves in the seam's terms: no comment or name outside the
 * consensus adapter ({@code ratis}) and the node's wiring ({@code node}) cites the Raft library, so
 * replacing the engine leaves no stale reasoning behind. Reads this module's main sources.
 */
class CommentCitationTest {
  private static final Path SOURCES = Path.of("src/main/java/dev/rangekv/server");
  /** Package docs that say where the adapter lives (they name its package, no rule of the library). */
  private static final java.util.Set<String> WHERE_THE_ADAPTER_IS =
      java.util.Set.of("package-info.java", "consensus/package-info.java");
  private static final Pattern LIBRARY = Pattern.compile("\\bRatis\\b|\\bratis\\b");

  @Test
  void operationPackages_citeNoRaftLibrary() throws IOException {
    List<String> citing;
    try (Stream<Path> files = Files.walk(SOURCES)) {
      citing = files.filter(p -> p.toString().endsWith(".java"))
          .filter(p -> !SOURCES.relativize(p).startsWith("ratis") && !SOURCES.relativize(p).startsWith("node"))
          .filter(p -> !WHERE_THE_ADAPTER_IS.contains(SOURCES.relativize(p).toString()))
          .filter(CommentCitationTest::cites)
          .map(p -> SOURCES.relativize(p).toString())
          .sorted()
          .toList();
    }
    assertThat(citing).as("files outside ratis/ and node/ that name the Raft library").isEmpty();
  }

  private static boolean cites(Path file) {
    try {
      return Files.readAllLines(file).stream().anyMatch(line -> LIBRARY.matcher(line).find());
    } catch (IOException e) {
      throw new java.io.UncheckedIOException(e);
    }
  }
}
