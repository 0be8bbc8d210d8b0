package dev.rangekv.cli.clock;

import java.io.IOException;
import java.lang.instrument.Instrumentation;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import net.bytebuddy.agent.builder.AgentBuilder;
import net.bytebuddy.asm.MemberSubstitution;
import net.bytebuddy.dynamic.DynamicType;
import net.bytebuddy.matcher.ElementMatchers;

/**
 * A test-only Java agent that makes a node's clocks jump. Its Raft clock: every {@code System.nanoTime()}
 * call in {@code org.apache.ratis.util.Timestamp} - the clock the consensus library reads for leader
 * leases, election timeouts and heartbeats - reads the real clock plus an offset. Its wall clock: every
 * {@code System.currentTimeMillis()} call in the node's {@code WallClock} - the time of day its dormancy
 * and its controller read - reads the real one plus a second offset. Both offsets, in milliseconds, come
 * from a control file (the agent's argument: "RAFT [WALL]"), re-read every 20 ms, so a test moves one
 * node's clocks forward or back while it runs. All of the class's reads are shifted, not only {@code currentTimeNanos()}: its
 * {@code elapsedTime()} and {@code elapsedTimeMs()} read {@code System.nanoTime()} themselves, and with
 * only the first shifted a stamp taken during a forward offset looked younger by the offset for good
 * (a clock running back, the old leader's lease over-estimated: the stale reads BENCHMARKS.md records
 * under "Clock jumps"; {@code ClockAgentTest}). It lives in the test tree: a production node has no
 * way to load it; only a test's {@code -javaagent:} option does ({@link ClockControl}).
 */
public final class ClockAgent {
  /** The current offset of the Raft clock; read by the code substituted into the clock. */
  public static volatile long offsetNanos;
  /** The current offset of the wall clock. */
  public static volatile long wallOffsetMillis;

  private ClockAgent() {}

  public static void premain(String file, Instrumentation instrumentation) {
    Path control = Path.of(file);
    refresh(control);
    Thread poller = new Thread(() -> {
      while (true) {
        refresh(control);
        try {
          TimeUnit.MILLISECONDS.sleep(20); // polling a file: no event to wait on
        } catch (InterruptedException e) {
          return;
        }
      }
    }, "clock-agent");
    poller.setDaemon(true);
    poller.start();
    new AgentBuilder.Default()
        .disableClassFormatChanges()
        .type(ElementMatchers.named(TIMESTAMP))
        .transform((builder, type, loader, module, domain) -> shift(builder))
        .type(ElementMatchers.named(WALL_CLOCK))
        .transform((builder, type, loader, module, domain) -> shiftWall(builder))
        .installOn(instrumentation);
  }

  /** Ratis' clock class, whose reads of the real clock the agent shifts. */
  static final String TIMESTAMP = "org.apache.ratis.util.Timestamp";
  /** The node's wall clock, whose reads of the time of day the agent shifts. */
  static final String WALL_CLOCK = "dev.rangekv.server.node.WallClock";

  /** Makes every {@code System.nanoTime()} call in the type {@code builder} builds read {@link #nanoTime()}. */
  static <T> DynamicType.Builder<T> shift(DynamicType.Builder<T> builder) {
    try {
      return builder.visit(MemberSubstitution.strict()
          .method(ElementMatchers.named("nanoTime").and(ElementMatchers.isDeclaredBy(System.class)))
          .replaceWith(ClockAgent.class.getMethod("nanoTime"))
          .on(ElementMatchers.any()));
    } catch (NoSuchMethodException e) {
      throw new IllegalStateException(e);
    }
  }

  /** Makes every {@code System.currentTimeMillis()} call in the type {@code builder} builds read {@link #currentTimeMillis()}. */
  static <T> DynamicType.Builder<T> shiftWall(DynamicType.Builder<T> builder) {
    try {
      return builder.visit(MemberSubstitution.strict()
          .method(ElementMatchers.named("currentTimeMillis").and(ElementMatchers.isDeclaredBy(System.class)))
          .replaceWith(ClockAgent.class.getMethod("currentTimeMillis"))
          .on(ElementMatchers.any()));
    } catch (NoSuchMethodException e) {
      throw new IllegalStateException(e);
    }
  }

  /** The shifted Raft clock: the real one plus the current offset. */
  public static long nanoTime() {
    return System.nanoTime() + offsetNanos;
  }

  /** The shifted wall clock: the real one plus the current wall offset. */
  public static long currentTimeMillis() {
    return System.currentTimeMillis() + wallOffsetMillis;
  }

  private static void refresh(Path control) {
    try {
      String s = Files.exists(control) ? Files.readString(control, StandardCharsets.UTF_8).strip() : "";
      String[] offsets = s.isEmpty() ? new String[0] : s.split("\\s+");
      long raft = offsets.length > 0 ? TimeUnit.MILLISECONDS.toNanos(Long.parseLong(offsets[0])) : 0;
      long wall = offsets.length > 1 ? Long.parseLong(offsets[1]) : 0;
      if (wall != wallOffsetMillis) {
        // in the node's log: a test can see that the jump reached the node
        System.err.println("clock agent: wall clock offset " + wall + " ms");
      }
      offsetNanos = raft;
      wallOffsetMillis = wall;
    } catch (IOException | NumberFormatException e) {
      // a file being rewritten: keep the last offset, the next poll reads it whole
    }
  }
}
