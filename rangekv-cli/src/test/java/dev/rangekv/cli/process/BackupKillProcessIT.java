package dev.rangekv.cli.process;

import static org.assertj.core.api.Assertions.assertThat;

import dev.rangekv.cli.CliRun;
import dev.rangekv.cli.cluster.KvSession;
import dev.rangekv.core.cluster.ControllerConfig;
import dev.rangekv.core.key.Key;
import dev.rangekv.server.node.LocalCluster;
import dev.rangekv.server.node.RaftTuning;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * A {@code backup create} process killed with SIGKILL after its first range: the backup verifies as
 * incomplete, and the next {@code backup create} to the same place resumes it, keeping what was written.
 */
@Timeout(180)
class BackupKillProcessIT {
  @TempDir Path dir;

  @Test
  void aKilledBackup_isIncomplete_andCreateResumesIt() throws Exception {
    try (LocalCluster cluster = LocalCluster.startZoned(List.of("z1"), dir.resolve("cluster"), RaftTuning.forTests(),
        ControllerConfig.builder().build())) {
      String address = cluster.config(0).clientAddress();
      CliRun.ok(CliRun.of("presplit", "--at", "k/1,k/2,k/3", "--cluster", address));
      try (KvSession kv = KvSession.open(List.of(address), Duration.ofSeconds(30))) {
        kv.run(c -> {
          SplittableRandom random = new SplittableRandom(7);
          for (int r = 0; r < 4; r++) {
            for (int i = 0; i < 12; i++) { // ~100 KiB of incompressible values per range
              byte[] v = new byte[8 << 10];
              random.nextBytes(v);
              c.put(Key.utf8("k/" + r + "/" + i), v);
            }
          }
          return null;
        });
      }
      String uri = dir.resolve("backup").toUri().toString();
      // 32 KB/s: a range takes about 3 s, so the kill lands between ranges 1 and 4
      CliProcess backup = CliProcess.start(dir.resolve("backup.log"),
          List.of("backup", "create", "--to", uri, "--span", "k/", "--rate", "32KB", "--cluster", address));
      try {
        backup.awaitOutput(out -> out.contains("[1/4]"), Duration.ofSeconds(90), "the first range written");
      } finally {
        backup.close(); // SIGKILL
      }
      assertThat(backup.output()).doesNotContain("-- backup ");
      CliRun verify = CliRun.of("backup", "verify", uri);
      assertThat(verify.exit()).isEqualTo(1);
      assertThat(verify.out()).contains("incomplete");

      CliRun resume = CliRun.ok(CliRun.of("backup", "create", "--to", uri, "--span", "k/", "--cluster", address));
      assertThat(resume.out()).containsPattern("resuming the backup at .*: [123] of its ranges already written")
          .contains("-- backup ").doesNotContain("[4/4]");
      assertThat(CliRun.ok(CliRun.of("backup", "verify", uri)).out()).startsWith("ok: 4 files");
    }
  }
}
