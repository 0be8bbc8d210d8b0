package dev.rangekv.cli.clock;

import java.io.IOException;
import java.lang.instrument.Instrumentation;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import net.bytebuddy.agent.builder.AgentBuilder;
import net.bytebuddy.asm.Advice;
import net.bytebuddy.matcher.ElementMatchers;

/**
 * A test-only Java agent that makes a node's Raft clock jump: it shifts
 * {@code org.apache.ratis.util.Timestamp.currentTimeNanos()} - the clock the consensus library reads
 * for leader leases, election timeouts and heartbeats - by an offset in milliseconds read from a control
 * file (the agent's argument), re-read every 20 ms, so a test moves one node's clock forward or back
 * while it runs. It lives in the test tree: a production node has no way to load it; only a test's
 * {@code -javaagent:} option does ({@link ClockControl}).
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
        .type(ElementMatchers.named("org.apache.ratis.util.Timestamp"))
        .transform((builder, type, loader, module, domain) ->
            builder.visit(Advice.to(Shift.class).on(ElementMatchers.named("currentTimeNanos"))))
        .installOn(instrumentation);
  }

  private static void refresh(Path control) {
    try {
      String s = Files.exists(control) ? Files.readString(control, StandardCharsets.UTF_8).strip() : "";
      offsetNanos = s.isEmpty() ? 0 : TimeUnit.MILLISECONDS.toNanos(Long.parseLong(s));
    } catch (IOException | NumberFormatException e) {
      // a file being rewritten: keep the last offset, the next poll reads it whole
    }
  }

  /** Inlined at the exit of the clock method: adds the offset to what it returns. */
  public static final class Shift {
    private Shift() {}

    @Advice.OnMethodExit
    public static void exit(@Advice.Return(readOnly = false) long nanos) {
      nanos += offsetNanos;
    }
  }
}
