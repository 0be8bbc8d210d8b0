package dev.rangekv.cli.clock;

import static org.assertj.core.api.Assertions.assertThat;

import java.lang.reflect.Method;
import java.util.concurrent.TimeUnit;
import net.bytebuddy.ByteBuddy;
import net.bytebuddy.dynamic.ClassFileLocator;
import net.bytebuddy.dynamic.loading.ClassLoadingStrategy;
import net.bytebuddy.pool.TypePool;
import dev.rangekv.server.node.WallClock;
import org.apache.ratis.util.Timestamp;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * {@link ClockAgent}'s shift applied to a private copy of Ratis' {@code Timestamp} (loaded child-first, so
 * the test JVM's own clock is untouched): a stamp's age is measured on the same shifted clock it was taken
 * on. With only {@code currentTimeNanos()} shifted, a stamp taken during a forward offset aged minus the
 * offset - the agent ran a node's clock back and over-estimated its leader's lease. And a private copy
 * of the node's {@code WallClock}: it reads the wall offset, which leaves the Raft clock alone.
 */
class ClockAgentTest {
  private static final long JUMP_MILLIS = 10_000;

  @AfterEach
  void noOffset() {
    ClockAgent.offsetNanos = 0;
    ClockAgent.wallOffsetMillis = 0;
  }

  @Test
  void theNodesWallClock_readsTheWallOffset_andItsRaftClockDoesNot() throws Exception {
    ClassFileLocator locator = ClassFileLocator.ForClassLoader.of(WallClock.class.getClassLoader());
    Class<?> wall = ClockAgent.shiftWall(new ByteBuddy().redefine(
            TypePool.Default.of(locator).describe(ClockAgent.WALL_CLOCK).resolve(), locator))
        .make()
        .load(ClockAgentTest.class.getClassLoader(), ClassLoadingStrategy.Default.CHILD_FIRST)
        .getLoaded();
    Class<?> timestamp = shifted();
    Object before = timestamp.getMethod("currentTime").invoke(null);
    for (long offset : new long[] {120_000, -120_000}) {
      ClockAgent.wallOffsetMillis = offset;
      long real = System.currentTimeMillis();
      assertThat((long) wall.getMethod("millis").invoke(null) - real).isBetween(offset - 1_000, offset + 1_000);
    }
    assertThat(elapsedMillis(timestamp, before)).isBetween(0L, 1_000L);
  }

  @Test
  void aStampTakenDuringAForwardJump_agesFromWhenItWasTaken() throws Exception {
    Class<?> timestamp = shifted();
    ClockAgent.offsetNanos = TimeUnit.MILLISECONDS.toNanos(JUMP_MILLIS);
    Object during = timestamp.getMethod("currentTime").invoke(null);
    assertThat(elapsedMillis(timestamp, during)).isBetween(0L, JUMP_MILLIS - 1);
  }

  @Test
  void aStampTakenBeforeAForwardJump_agesByTheJump() throws Exception {
    Class<?> timestamp = shifted();
    Object before = timestamp.getMethod("currentTime").invoke(null);
    ClockAgent.offsetNanos = TimeUnit.MILLISECONDS.toNanos(JUMP_MILLIS);
    assertThat(elapsedMillis(timestamp, before)).isGreaterThanOrEqualTo(JUMP_MILLIS);
  }

  @Test
  void aStampTakenBeforeABackJump_looksYoungerByTheJump() throws Exception {
    Class<?> timestamp = shifted();
    Object before = timestamp.getMethod("currentTime").invoke(null);
    ClockAgent.offsetNanos = -TimeUnit.MILLISECONDS.toNanos(JUMP_MILLIS);
    assertThat(elapsedMillis(timestamp, before)).isLessThanOrEqualTo(-JUMP_MILLIS + 1_000);
  }

  private static long elapsedMillis(Class<?> timestamp, Object stamp) throws Exception {
    Method elapsed = timestamp.getMethod("elapsedTimeMs");
    return (long) elapsed.invoke(stamp);
  }

  private static Class<?> shifted() {
    ClassFileLocator locator = ClassFileLocator.ForClassLoader.of(Timestamp.class.getClassLoader());
    return ClockAgent.shift(new ByteBuddy().redefine(
            TypePool.Default.of(locator).describe(ClockAgent.TIMESTAMP).resolve(), locator))
        .make()
        .load(ClockAgentTest.class.getClassLoader(), ClassLoadingStrategy.Default.CHILD_FIRST)
        .getLoaded();
  }
}
