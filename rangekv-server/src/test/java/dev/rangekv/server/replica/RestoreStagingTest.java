package dev.rangekv.server.replica;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.time.Duration;
import java.time.Instant;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class RestoreStagingTest {
  @TempDir Path root;

  private Path staged(String restore, String range, Instant modified) throws IOException {
    Path dir = Files.createDirectories(root.resolve(restore).resolve(range));
    Files.write(dir.resolve("span-000000.sst"), new byte[] {1, 2, 3});
    Files.setLastModifiedTime(dir, FileTime.from(modified));
    return dir;
  }

  @Test
  void theStartSweep_deletesPartialStagingAndEmptyRestores_butKeepsCompleteStagingForItsEntry() throws IOException {
    Instant now = Instant.now();
    Path complete = staged("restore-a", "r1", now);
    Path partial = staged("restore-a", "r2.part", now);
    Path empty = Files.createDirectories(root.resolve("restore-b"));

    RestoreStaging.Swept swept = RestoreStaging.sweep(root, now.minus(RestoreStaging.EXPIRY), true);

    assertThat(swept).isEqualTo(new RestoreStaging.Swept(1, 0, 1));
    assertThat(complete).isDirectory();
    assertThat(partial).doesNotExist();
    assertThat(empty).doesNotExist();
  }

  @Test
  void aRunningSweep_deletesOnlyWhatExpired_andLeavesStagingInProgress() throws IOException {
    Instant now = Instant.now();
    Path fresh = staged("restore-a", "r1", now);
    Path inProgress = staged("restore-a", "r2.part", now);
    Path old = staged("restore-b", "r7", now.minus(Duration.ofDays(8)));
    Path oldPartial = staged("restore-b", "r8.part", now.minus(Duration.ofDays(8)));
    Files.setLastModifiedTime(root.resolve("restore-b"), FileTime.from(now.minus(Duration.ofDays(8))));

    RestoreStaging.Swept swept = RestoreStaging.sweep(root, now.minus(RestoreStaging.EXPIRY), false);

    assertThat(swept).isEqualTo(new RestoreStaging.Swept(1, 1, 1));
    assertThat(fresh).isDirectory();
    assertThat(inProgress).isDirectory();
    assertThat(old).doesNotExist();
    assertThat(oldPartial).doesNotExist();
    assertThat(root.resolve("restore-b")).doesNotExist();
  }

  @Test
  void aRunningSweep_skipsAStagingThatWentSinceTheListing_andSweepsTheRest() throws IOException {
    Instant now = Instant.now();
    Path fresh = staged("restore-a", "r1", now);
    // what another staging's rename leaves a sweep beside it: a name listed that no longer resolves
    Files.createSymbolicLink(root.resolve("restore-a").resolve("r2.part"), root.resolve("restore-a").resolve("gone"));
    Path old = staged("restore-a", "r7", now.minus(Duration.ofDays(8)));

    RestoreStaging.Swept swept = RestoreStaging.sweep(root, now.minus(RestoreStaging.EXPIRY), false);

    assertThat(swept).isEqualTo(new RestoreStaging.Swept(0, 1, 0));
    assertThat(fresh).isDirectory();
    assertThat(old).doesNotExist();
  }

  @Test
  void aSweepOfANodeThatNeverRestored_doesNothing() throws IOException {
    assertThat(RestoreStaging.sweep(root.resolve("restores"), Instant.now(), true))
        .isEqualTo(new RestoreStaging.Swept(0, 0, 0));
  }
}
