package dev.rangekv.server.node;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The meta voters' client addresses as this node last learned them from a heartbeat answer, one per line
 * in {@code <data dir>/meta-voters}: a node restarted without {@code --join}, whose meta replica and
 * ranges were moved away, finds the meta range through them. A hint only: a missing or stale file costs
 * nothing but the lookup.
 */
final class KnownVotersFile {
  private static final Logger log = LoggerFactory.getLogger(KnownVotersFile.class);
  private static final String NAME = "meta-voters";

  private KnownVotersFile() {}

  static List<String> read(Path dataDir) {
    Path file = dataDir.resolve(NAME);
    try {
      return Files.exists(file)
          ? Files.readAllLines(file, StandardCharsets.UTF_8).stream().map(String::trim).filter(l -> !l.isEmpty()).toList()
          : List.of();
    } catch (IOException e) {
      log.warn("meta voters file unreadable, ignored file={} error={}", file, e.toString());
      return List.of();
    }
  }

  static void write(Path dataDir, List<String> addresses) {
    Path tmp = dataDir.resolve(NAME + ".tmp");
    try {
      Files.writeString(tmp, String.join("\n", addresses) + "\n", StandardCharsets.UTF_8);
      Files.move(tmp, dataDir.resolve(NAME), StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
    } catch (IOException e) {
      log.warn("meta voters file not written dir={} error={}", dataDir, e.toString()); // a hint: the next answer retries
    }
  }
}
