package dev.rangekv.server.node;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class KnownVotersFileTest {
  @TempDir
  Path dir;

  @Test
  void learnedVoters_surviveARestart_andAMissingFileIsNoVoters() {
    assertThat(KnownVotersFile.read(dir)).isEmpty();
    KnownVotersFile.write(dir, List.of("127.0.0.1:7011", "127.0.0.1:7021"));
    assertThat(KnownVotersFile.read(dir)).containsExactly("127.0.0.1:7011", "127.0.0.1:7021");
    KnownVotersFile.write(dir, List.of("127.0.0.1:7031"));
    assertThat(KnownVotersFile.read(dir)).containsExactly("127.0.0.1:7031");
  }
}
