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
 * A test-only Java agent that makes a node's Raft clock jump: every {@code System.nanoTime()} call in
 * {@code org.apache.ratis.util.Timestamp} - the clock the consensus library reads for leader leases,
 * election timeouts and heartbeats - reads the real clock plus an offset in milliseconds from a control
 * file (the agent's argument), re-read every 20 ms, so a test moves one node's clock forward or back
 * while it runs. All of the class's reads are shifted, not only {@code currentTimeNanos()}: its
 * {@code elapsedTime()} and {@code elapsedTimeMs()} read {@code System.nanoTime()} themselves, and with
 * only the first shifted a stamp taken during a forward offset looked younger by the offset for good
 * (a clock running back, the old leader's lease over-estimated: the stale reads BENCHMARKS.md records
 * under "Clock jumps"; {@code ClockAgentTest}). It lives in the test tree: a production node has no
 * way to load it; only a test's {@code -javaagent:} option does ({@link ClockControl}).
 */
public final class ClockAgent {
  /** The current offset; read by the advice inlined into the clock. */
  public static volatile long offsetNanos;

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
        .installOn(instrumentation);
  }

  /** Ratis' clock class, whose reads of the real clock the agent shifts. */
  static final String TIMESTAMP = "org.apache.ratis.util.Timestamp";

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

  /** The shifted clock: the real one plus the current offset. */
  public static long nanoTime() {
    return System.nanoTime() + offsetNanos;
  }

  private static void refresh(Path control) {
    try {
      String s = Files.exists(control) ? Files.readString(control, StandardCharsets.UTF_8).strip() : "";
      offsetNanos = s.isEmpty() ? 0 : TimeUnit.MILLISECONDS.toNanos(Long.parseLong(s));
    } catch (IOException | NumberFormatException e) {
      // a file being rewritten: keep the last offset, the next poll reads it whole
    }
  }
}
