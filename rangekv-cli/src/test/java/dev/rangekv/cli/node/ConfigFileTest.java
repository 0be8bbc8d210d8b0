package dev.rangekv.cli.node;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.rangekv.cli.cluster.CliException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ConfigFileTest {
  @TempDir
  Path dir;

  @Test
  void fileOptions_goBeforeTheCommandLine_andTheCommandLineWins() throws Exception {
    Path f = Files.writeString(dir.resolve("n.properties"),
        "node-id = n1\nlisten = 127.0.0.1:7001\ndata-dir = /tmp/x\nset.controller.tick = 2000\nset.range.max-bytes = 9\n");
    String[] out = ConfigFile.expand(new String[] {"--verbose", "start", "--config", f.toString(), "--node-id=n2",
        "--set", "range.max-bytes=5"});
    assertThat(out).containsExactly("--verbose", "start", "--data-dir=/tmp/x", "--listen=127.0.0.1:7001",
        "--set", "controller.tick=2000", "--config", f.toString(), "--node-id=n2", "--set", "range.max-bytes=5");
  }

  @Test
  void otherCommands_andStartWithoutConfig_areLeftAlone() {
    String[] get = {"get", "--config", "nowhere", "k"};
    assertThat(ConfigFile.expand(get)).isSameAs(get);
    String[] start = {"start", "--node-id", "n1"};
    assertThat(ConfigFile.expand(start)).isSameAs(start);
  }

  @Test
  void aMissingFile_isOneClearInputError() {
    assertThatThrownBy(() -> ConfigFile.expand(new String[] {"start", "--config=" + dir.resolve("none")}))
        .isInstanceOf(CliException.class).hasMessageEndingWith("none: no such file")
        .satisfies(e -> assertThat(((CliException) e).exitCode()).isEqualTo(CliException.INVALID_INPUT));
  }
}
