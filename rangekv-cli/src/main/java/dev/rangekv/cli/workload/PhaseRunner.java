package dev.rangekv.cli.workload;

import dev.rangekv.client.RangeKvException;
import java.io.PrintWriter;
import java.time.Duration;
import java.util.Optional;
import java.util.SplittableRandom;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.LongAdder;

/**
 * Runs one phase closed-loop: {@code threads × inFlight} slots, each with one operation in flight,
 * issuing the next from the previous one's completion (on {@code executor}, never on the client's
 * threads and never recursively), so no thread blocks per operation. Operations completing during the
 * warm-up are run but not counted; the measured window's machine CPU is read from /proc/stat at its
 * two ends. The calling thread prints a live line per second and waits; it is the only blocking thread.
 */
final class PhaseRunner {
  /** How phases run. */
  record Settings(int threads, int inFlight, Duration warmup, Duration duration, Duration opTimeout, long seed) {}

  private static final long TICK_NANOS = TimeUnit.SECONDS.toNanos(1);

  private final Operations operations;
  private final Executor executor;
  private final Settings settings;
  private final PrintWriter live;

  PhaseRunner(Operations operations, Executor executor, Settings settings, PrintWriter live) {
    this.operations = operations;
    this.executor = executor;
    this.settings = settings;
    this.live = live;
  }

  /** Runs {@code spec} for the warm-up plus the duration. */
  PhaseResult run(PhaseSpec spec, KeySpace keys, int phaseIndex) throws InterruptedException {
    return drive(spec, keys, Long.MAX_VALUE, settings.warmup(), Optional.of(settings.duration()), phaseIndex);
  }

  /** Inserts keys until the key space holds {@code target}: the {@code --load} step, measured whole. */
  PhaseResult load(KeySpace keys, long target) throws InterruptedException {
    PhaseSpec spec = PhaseSpec.parse("insert");
    return drive(new PhaseSpec("load", spec.mix(), spec.distribution(), 1, false), keys, target,
        Duration.ZERO, Optional.empty(), -1);
  }

  private PhaseResult drive(PhaseSpec spec, KeySpace keys, long insertLimit, Duration warmup,
      Optional<Duration> duration, int phaseIndex) throws InterruptedException {
    long start = System.nanoTime();
    long warmEnd = start + warmup.toNanos();
    long end = duration.map(d -> warmEnd + d.toNanos()).orElse(Long.MAX_VALUE);
    Run run = new Run(spec, keys, insertLimit, warmEnd, end);
    int slots = settings.threads() * settings.inFlight();
    SplittableRandom seeds = new SplittableRandom(settings.seed() + 1_000_003L * phaseIndex);
    live.printf("-- %s: %s%s, %d threads x %d in flight%n", spec.name(),
        warmup.isZero() ? "" : "warm-up " + warmup.toSeconds() + " s, then ",
        duration.map(d -> "measured " + d.toSeconds() + " s").orElse("until " + insertLimit + " keys"),
        settings.threads(), settings.inFlight());
    live.flush();
    for (int i = 0; i < slots; i++) {
      new Slot(run, seeds.split()).issue();
    }
    Optional<MachineCpu> cpu0 = warmup.isZero() ? MachineCpu.read() : Optional.empty();
    Optional<JitCpu> jit0 = warmup.isZero() ? JitCpu.read() : Optional.empty();
    boolean measuring = warmup.isZero();
    LatencyHistogram.Snapshot prev = LatencyHistogram.Snapshot.empty();
    long prevErrors = 0;
    long prevTick = start;
    long nextTick = start + TICK_NANOS;
    long finished;
    while (true) {
      long wakeAt = Math.min(nextTick, measuring ? end : warmEnd);
      boolean allDone = run.done.await(Math.max(0, wakeAt - System.nanoTime()), TimeUnit.NANOSECONDS);
      long now = System.nanoTime();
      if (!measuring && now >= warmEnd) {
        cpu0 = MachineCpu.read();
        jit0 = JitCpu.read();
        measuring = true;
      }
      if (now >= end || allDone) {
        finished = Math.min(now, end);
        break;
      }
      if (now >= nextTick) {
        LatencyHistogram.Snapshot snap = run.liveLatency.snapshot();
        long errors = run.liveErrors.sum();
        live.println(SummaryFormat.live(spec.name(), TimeUnit.NANOSECONDS.toSeconds(now - start), now < warmEnd,
            (now - prevTick) / 1e9, snap.minus(prev), errors - prevErrors));
        live.flush();
        prev = snap;
        prevErrors = errors;
        prevTick = now;
        nextTick += TICK_NANOS;
      }
    }
    Optional<MachineCpu> cpu1 = MachineCpu.read();
    Optional<JitCpu> jit1 = JitCpu.read();
    Optional<Double> load = MachineCpu.loadAverage();
    run.stop.set(true);
    // operations still in flight end within their deadline; they complete after the window and are not counted
    run.done.await(settings.opTimeout().toMillis() + 5_000, TimeUnit.MILLISECONDS);
    Optional<Double> cpuSeconds = cpu0.isPresent() && cpu1.isPresent()
        ? Optional.of(cpu1.get().busySecondsSince(cpu0.get())) : Optional.empty();
    Optional<Double> jitSeconds = cpuSeconds.isPresent() && jit0.isPresent() && jit1.isPresent()
        ? Optional.of(jit1.get().secondsSince(jit0.get())) : Optional.empty();
    double seconds = (finished - Math.min(warmEnd, finished)) / 1e9;
    return new PhaseResult(spec.name(), settings.threads(), warmup.toMillis() / 1000.0, seconds,
        run.measured.latencies(), run.measured.total(), run.measured.errors(), run.measured.conflicts(),
        cpuSeconds, jitSeconds, load);
  }

  /** The shared state of one phase run. */
  private final class Run {
    final PhaseSpec spec;
    final KeySpace keys;
    final long insertLimit;
    final long warmEnd;
    final long end;
    final Tally warm = new Tally();
    final Tally measured = new Tally();
    final LatencyHistogram liveLatency = new LatencyHistogram();
    final LongAdder liveErrors = new LongAdder();
    final AtomicBoolean stop = new AtomicBoolean();
    final CountDownLatch done = new CountDownLatch(settings.threads() * settings.inFlight());

    Run(PhaseSpec spec, KeySpace keys, long insertLimit, long warmEnd, long end) {
      this.spec = spec;
      this.keys = keys;
      this.insertLimit = insertLimit;
      this.warmEnd = warmEnd;
      this.end = end;
    }

    void complete(OpKind kind, long t0, Boolean applied, Throwable failure) {
      long t1 = System.nanoTime();
      Tally tally = t1 < warmEnd ? warm : t1 < end ? measured : null;
      long micros = (t1 - t0) / 1000;
      if (failure != null) {
        liveErrors.increment();
        if (tally != null) {
          tally.error(errorKind(failure));
        }
        return;
      }
      liveLatency.record(micros);
      if (tally != null) {
        if (Boolean.TRUE.equals(applied)) {
          tally.success(kind, micros);
        } else {
          tally.conflict(kind, micros);
        }
      }
    }
  }

  /** One closed-loop client: one operation in flight, the next issued from the last one's completion. */
  private final class Slot {
    private final Run run;
    private final SplittableRandom random;
    private final KeyChooser chooser;

    Slot(Run run, SplittableRandom random) {
      this.run = run;
      this.random = random;
      this.chooser = KeyChooser.of(run.spec.distribution());
    }

    void issue() {
      if (run.stop.get() || System.nanoTime() >= run.end) {
        run.done.countDown();
        return;
      }
      OpKind kind = run.spec.pick(random);
      long index;
      if (kind == OpKind.INSERT) {
        index = run.keys.claim(run.insertLimit);
        if (index < 0) {
          run.done.countDown(); // the load reached its target
          return;
        }
      } else {
        index = chooser.next(random, Math.max(1, run.keys.size()));
      }
      int scanLength = kind == OpKind.SCAN ? run.spec.nextScanLength(random) : 1;
      long t0 = System.nanoTime();
      CompletableFuture<Boolean> f;
      try {
        f = operations.run(kind, index, scanLength, random);
      } catch (RuntimeException e) {
        f = CompletableFuture.failedFuture(e);
      }
      f.whenCompleteAsync((applied, failure) -> {
        run.complete(kind, t0, applied, failure);
        issue();
      }, executor);
    }
  }

  /** The client's stable error code, else the exception's class name. */
  static String errorKind(Throwable t) {
    Throwable c = t;
    while ((c instanceof CompletionException || c instanceof ExecutionException) && c.getCause() != null) {
      c = c.getCause();
    }
    return c instanceof RangeKvException e ? e.code() : c.getClass().getSimpleName();
  }
}
