package dev.rangekv.cli.nemesis;

import dev.rangekv.client.AmbiguousResultException;
import dev.rangekv.client.CasResult;
import dev.rangekv.client.KeyValue;
import dev.rangekv.client.RangeKvClient;
import dev.rangekv.client.RangeKvException;
import dev.rangekv.client.scan.ScanIterator;
import dev.rangekv.client.scan.ScanOptions;
import dev.rangekv.core.key.Key;
import dev.rangekv.core.key.RangeEnd;
import dev.rangekv.testkit.history.CounterModel;
import dev.rangekv.testkit.history.FaultLog;
import dev.rangekv.testkit.history.Outcome;
import dev.rangekv.testkit.history.RegisterModel;
import dev.rangekv.testkit.history.Violation;
import dev.rangekv.testkit.linearizability.Call;
import dev.rangekv.testkit.linearizability.History;
import dev.rangekv.testkit.linearizability.Result;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.SplittableRandom;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The client side of a fault run: writers that each own a key prefix ({@code w<i>/k<nn>}) and run
 * puts of unique values, deletes, range deletes, point reads and scans one at a time, every result
 * judged live by the writer's {@link RegisterModel}; and incrementers that bump shared counters
 * ({@code c/<n>}) by read-then-compare-and-set into {@link CounterModel}s; and sharers, concurrent
 * clients of a few shared keys ({@code s/<n>}) whose puts, gets, deletes and compare-and-sets go into a
 * {@link History} for the linearizability check. Every failed operation goes to the {@link FaultLog}
 * with its start and end. Times are nanoseconds since {@code origin}.
 */
final class Workload {
  static final int KEYS_PER_WRITER = 40;
  static final int SHARED_KEYS = 3;

  private final RangeKvClient client;
  private final FaultLog faults;
  private final long origin;
  private final AtomicBoolean stop = new AtomicBoolean();
  private final List<Thread> threads = new ArrayList<>();
  final List<RegisterModel> writers = new ArrayList<>();
  final List<CounterModel> counters = new ArrayList<>();
  final List<Violation> liveViolations = new CopyOnWriteArrayList<>();
  final List<String> unexpected = new CopyOnWriteArrayList<>();
  final AtomicLong operations = new AtomicLong();
  final AtomicLong acked = new AtomicLong();
  final AtomicLong ambiguous = new AtomicLong();
  final AtomicLong failed = new AtomicLong();
  final AtomicLong casMismatches = new AtomicLong();
  final History shared;

  Workload(RangeKvClient client, FaultLog faults, long origin, int writers, int counters) {
    this.client = client;
    this.faults = faults;
    this.origin = origin;
    this.shared = new History(this::now);
    for (int i = 0; i < writers; i++) {
      this.writers.add(new RegisterModel());
    }
    for (int i = 0; i < counters; i++) {
      this.counters.add(new CounterModel(counterKey(i)));
    }
  }

  static String writerKey(int writer, int k) {
    return String.format("w%d/k%02d", writer, k);
  }

  static String writerLo(int writer) {
    return "w" + writer + "/";
  }

  static String writerHi(int writer) {
    return "w" + writer + "0"; // '0' follows '/': the end of the writer's prefix
  }

  static String counterKey(int i) {
    return "c/" + i;
  }

  static String sharedKey(int i) {
    return "s/" + i;
  }

  void start(long seed, int incrementers, int sharers) {
    for (int w = 0; w < writers.size(); w++) {
      int writer = w;
      SplittableRandom random = new SplittableRandom(seed * 31 + w);
      threads.add(thread("writer-" + w, () -> writeLoop(writer, random)));
    }
    for (int c = 0; c < incrementers; c++) {
      SplittableRandom random = new SplittableRandom(seed * 37 + 1000 + c);
      threads.add(thread("incrementer-" + c, () -> incrementLoop(random)));
    }
    for (int c = 0; c < sharers; c++) {
      int sharer = c;
      SplittableRandom random = new SplittableRandom(seed * 41 + 2000 + c);
      threads.add(thread("sharer-" + c, () -> shareLoop(sharer, random)));
    }
    threads.forEach(Thread::start);
  }

  /** Stops every thread after its current operation; waits (bounded) for them. */
  void stop() throws InterruptedException {
    stop.set(true);
    for (Thread t : threads) {
      t.join(TimeUnit.SECONDS.toMillis(60));
      if (t.isAlive()) {
        throw new AssertionError(t.getName() + " did not stop within 60 s");
      }
    }
  }

  private Thread thread(String name, Runnable body) {
    Thread t = new Thread(() -> {
      try {
        body.run();
      } catch (RuntimeException | Error e) {
        unexpected.add(name + ": " + e);
      }
    }, "nemesis-" + name);
    t.setDaemon(true);
    return t;
  }

  private long now() {
    return System.nanoTime() - origin;
  }

  private void writeLoop(int w, SplittableRandom random) {
    RegisterModel model = writers.get(w);
    long seq = 0;
    while (!stop.get()) {
      int op = random.nextInt(100);
      String key = writerKey(w, random.nextInt(KEYS_PER_WRITER));
      long start = now();
      operations.incrementAndGet();
      try {
        if (op < 55) {
          String value = "w" + w + "-" + (seq++);
          Outcome o = write(() -> client.put(Key.utf8(key), value.getBytes(StandardCharsets.UTF_8)), start, "put " + key);
          model.put(key, value, o);
        } else if (op < 63) {
          model.delete(key, write(() -> client.delete(Key.utf8(key)), start, "delete " + key));
        } else if (op < 67) {
          String lo = writerKey(w, random.nextInt(KEYS_PER_WRITER));
          String hi = writerKey(w, random.nextInt(KEYS_PER_WRITER));
          String a = lo.compareTo(hi) <= 0 ? lo : hi;
          String b = lo.compareTo(hi) <= 0 ? hi : lo;
          Outcome o = write(() -> client.deleteRange(Key.utf8(a), RangeEnd.at(Key.utf8(b))), start,
              "deleteRange " + a + ".." + b);
          model.deleteRange(a, b, o);
        } else if (op < 90) {
          Optional<byte[]> v = client.get(Key.utf8(key));
          model.read(key, v.map(Workload::text)).ifPresent(liveViolations::add);
        } else {
          boolean reverse = random.nextBoolean();
          List<Map.Entry<String, String>> entries = scan(writerLo(w), writerHi(w), reverse, random.nextBoolean() ? 5 : 64);
          liveViolations.addAll(model.scan(writerLo(w), writerHi(w), reverse, entries));
        }
      } catch (RangeKvException e) {
        // a read or scan failed (writes are classified in write()): nothing to judge, but it failed
        failed.incrementAndGet();
        faults.failed(start, now(), "read/scan " + key + ": " + e.getMessage());
      }
    }
  }

  List<Map.Entry<String, String>> scan(String lo, String hi, boolean reverse, int pageSize) {
    return scan(client, lo, hi, reverse, pageSize);
  }

  /** Every entry of {@code [lo, hi)} through the client's paged scan, in scan order. */
  static List<Map.Entry<String, String>> scan(RangeKvClient client, String lo, String hi, boolean reverse, int pageSize) {
    ScanIterator it = client.scan(Key.utf8(lo), RangeEnd.at(Key.utf8(hi)),
        ScanOptions.defaults().withReverse(reverse).withPageSize(pageSize));
    List<Map.Entry<String, String>> out = new ArrayList<>();
    while (it.hasNext()) {
      KeyValue kv = it.next();
      out.add(Map.entry(kv.key().toUtf8(), kv.valueUtf8()));
    }
    return out;
  }

  private interface Write {
    void run();
  }

  private Outcome write(Write body, long start, String what) {
    try {
      body.run();
      acked.incrementAndGet();
      faults.acked(start, now());
      return Outcome.ACKED;
    } catch (AmbiguousResultException e) {
      ambiguous.incrementAndGet();
      faults.failed(start, now(), what + ": " + e.getMessage());
      return Outcome.AMBIGUOUS;
    } catch (RangeKvException e) {
      failed.incrementAndGet();
      faults.failed(start, now(), what + ": " + e.getMessage());
      return Outcome.FAILED;
    }
  }

  private void incrementLoop(SplittableRandom random) {
    while (!stop.get()) {
      int c = random.nextInt(counters.size());
      Key key = Key.utf8(counterKey(c));
      long start = now();
      operations.incrementAndGet();
      Optional<byte[]> current;
      try {
        current = client.get(key);
      } catch (RangeKvException e) {
        failed.incrementAndGet();
        faults.failed(start, now(), "counter get " + key.toUtf8() + ": " + e.getMessage());
        continue;
      }
      long value = current.map(b -> Long.parseLong(text(b))).orElse(0L);
      byte[] next = Long.toString(value + 1).getBytes(StandardCharsets.UTF_8);
      long casStart = now();
      try {
        CasResult r = client.compareAndSet(key, current, Optional.of(next));
        if (r.succeeded()) {
          acked.incrementAndGet();
          faults.acked(casStart, now());
          counters.get(c).increment(Outcome.ACKED);
        } else {
          casMismatches.incrementAndGet(); // another incrementer won: no increment, no failure
        }
      } catch (AmbiguousResultException e) {
        ambiguous.incrementAndGet();
        faults.failed(casStart, now(), "cas " + key.toUtf8() + ": " + e.getMessage());
        counters.get(c).increment(Outcome.AMBIGUOUS);
      } catch (RangeKvException e) {
        failed.incrementAndGet();
        faults.failed(casStart, now(), "cas " + key.toUtf8() + ": " + e.getMessage());
        counters.get(c).increment(Outcome.FAILED);
      }
    }
  }

  /**
   * One client of the shared keys: puts of values unique to it, gets, deletes, and compare-and-sets
   * from the value it last saw there (or absence), each recorded with its times and outcome.
   */
  private void shareLoop(int sharer, SplittableRandom random) {
    long seq = 0;
    Map<String, Optional<String>> lastSeen = new HashMap<>();
    while (!stop.get()) {
      String key = sharedKey(random.nextInt(SHARED_KEYS));
      Key k = Key.utf8(key);
      int op = random.nextInt(100);
      Call call;
      if (op < 30) {
        call = new Call.Put("s" + sharer + "-" + (seq++));
      } else if (op < 70) {
        call = new Call.Get();
      } else if (op < 78) {
        call = new Call.Delete();
      } else {
        Optional<String> next = random.nextInt(5) == 0 ? Optional.empty() : Optional.of("s" + sharer + "-" + (seq++));
        call = new Call.Cas(lastSeen.getOrDefault(key, Optional.empty()), next);
      }
      operations.incrementAndGet();
      long start = now();
      int id = shared.invoke(sharer, key, call);
      try {
        Result result;
        if (call instanceof Call.Put p) {
          client.put(k, p.value().getBytes(StandardCharsets.UTF_8));
          result = new Result.Done();
        } else if (call instanceof Call.Get) {
          Optional<String> v = client.get(k).map(Workload::text);
          lastSeen.put(key, v);
          result = new Result.Read(v);
        } else if (call instanceof Call.Delete) {
          client.delete(k);
          result = new Result.Done();
        } else {
          Call.Cas cas = (Call.Cas) call;
          CasResult r = client.compareAndSet(k, cas.expected().map(v -> v.getBytes(StandardCharsets.UTF_8)),
              cas.next().map(v -> v.getBytes(StandardCharsets.UTF_8)));
          result = r.succeeded() ? new Result.Swapped() : new Result.Refused(r.current().map(Workload::text));
        }
        shared.complete(id, result);
        if (!(call instanceof Call.Get)) {
          acked.incrementAndGet();
          faults.acked(start, now());
        }
      } catch (AmbiguousResultException e) {
        shared.ambiguous(id);
        ambiguous.incrementAndGet();
        faults.failed(start, now(), "shared " + call + " " + key + ": " + e.getMessage());
      } catch (RangeKvException e) {
        // definitely not applied (a read has no effect either way): it leaves the history
        shared.failed(id);
        failed.incrementAndGet();
        faults.failed(start, now(), "shared " + call + " " + key + ": " + e.getMessage());
      }
    }
  }

  static String text(byte[] b) {
    return new String(b, StandardCharsets.UTF_8);
  }
}
