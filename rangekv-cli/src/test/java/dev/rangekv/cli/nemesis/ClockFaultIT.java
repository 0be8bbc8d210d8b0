package dev.rangekv.cli.nemesis;

import static org.assertj.core.api.Assertions.assertThat;

import dev.rangekv.cli.CliRun;
import dev.rangekv.cli.clock.ClockControl;
import dev.rangekv.client.AmbiguousResultException;
import dev.rangekv.client.ClientOptions;
import dev.rangekv.client.RangeKvClient;
import dev.rangekv.client.RangeKvException;
import dev.rangekv.core.key.Key;
import dev.rangekv.testkit.Await;
import dev.rangekv.testkit.linearizability.Call;
import dev.rangekv.testkit.linearizability.History;
import dev.rangekv.testkit.linearizability.Linearizability;
import dev.rangekv.testkit.linearizability.Operation;
import dev.rangekv.testkit.linearizability.Result;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Clock faults against the lease rule: three node processes in network namespaces, each with the
 * {@link dev.rangekv.cli.clock.ClockAgent} on its Raft clock. The leader of one range is cut off from its
 * followers (clients still reach it) and its Raft clock jumps forward - a pause, by its own clock, that may
 * outlast its lease - or its wall clock jumps forward and back, while clients keep writing and reading
 * shared keys through it and through whoever the followers elect, the writers reaching the new leader
 * within 300 ms of a cut. Each cut must see writes acknowledged by the new leader and reads answered; no
 * read may return a value older than a write acknowledged before the read began: the linearizability
 * checker decides, key by key.
 */
class ClockFaultIT {
  private static final List<String> IDS = List.of("n1", "n2", "n3");
  private static final Duration STEP = Duration.ofSeconds(120);
  /** Several election timeouts (1-2 s) and a client timeout (3 s). */
  private static final Duration CUT = Duration.ofSeconds(5);
  /**
   * The Raft clock's jumps, forward only: by less than Ratis's pause monitor's step-down threshold (2 s),
   * so only the lease rule stands between the old leader and a stale read (by its own clock its lease runs
   * out sooner); and by more, which the pause monitor takes for a JVM pause and answers by stepping every
   * leader down. Not back: the lease is measured on {@code System.nanoTime()}, a monotonic clock, and a
   * step back of it over-estimates the lease by the step, outside what leases promise (docs/architecture.md,
   * invariant 8). (A jump of a minute or more makes the pause monitor close the node's Raft server.)
   * Then the wall clock (the time of day of the node's dormancy and controller, which NTP may step either
   * way): forward past the dormancy period and the dead-node timeout (60 s each), then as far back, with
   * the Raft clock left alone.
   */
  private static final List<Jump> JUMPS = List.of(
      new Jump(Duration.ofMillis(1900), List.of()),
      new Jump(Duration.ofSeconds(10), List.of()),
      new Jump(Duration.ZERO, List.of(Duration.ofMinutes(3), Duration.ofMinutes(-3))));

  /**
   * One fault: the cut-off leader's Raft clock offset for the whole cut, and its wall clock offsets, each
   * for an equal share of the cut.
   */
  private record Jump(Duration raft, List<Duration> wall) {
    @Override
    public String toString() {
      return (raft.isZero() ? "" : "raft clock " + raft) + (wall.isEmpty() ? "" : "wall clock " + wall);
    }
  }

  private static final Pattern CLK_RANGE = Pattern.compile(
      "\\{\"rangeId\":(\\d+),\"start\":\"clk/\".*?\"replicas\":\\[(.*?)\\].*?\"leader\":(?:null|\"([^\"]+)\")");
  private static final Pattern NODE_ID = Pattern.compile("\"nodeId\":\"([^\"]+)\"");

  @TempDir
  Path dir;

  @Test
  @Timeout(value = 6, unit = TimeUnit.MINUTES)
  void aLeaderCutOffFromItsFollowers_whoseClockJumps_servesNoStaleRead() throws Exception {
    Path logs = Path.of("target", "clock-fault-logs");
    Map<String, ClockControl> clocks = new LinkedHashMap<>();
    for (String id : IDS) {
      clocks.put(id, ClockControl.in(dir.resolve("clocks"), id));
    }
    long origin = System.nanoTime();
    History history = new History(() -> System.nanoTime() - origin);
    try (NetNamespaces net = NetNamespaces.create(IDS);
        NodeProcesses nodes = new NodeProcesses(dir, logs, IDS, List.of("controller.tick=1000"), Optional.of(net),
            id -> List.of(clocks.get(id).jvmOption()))) {
      formCluster(nodes);
      ClientOptions options = ClientOptions.defaults().withTimeout(Duration.ofSeconds(3));
      // two clients: the readers' keeps its route to the old leader as long as that answers them; the
      // writers' gives an attempt 300 ms before it tries the other replicas, so it reaches the new leader
      // while the old one may still count on its lease
      try (RangeKvClient writing = RangeKvClient.connect(nodes.addresses(),
              options.withAttemptTimeout(Duration.ofMillis(300)));
          RangeKvClient reading = RangeKvClient.connect(nodes.addresses(), options)) {
        List<String> journal = new ArrayList<>();
        for (Jump jump : JUMPS) {
          String key = "clk/" + JUMPS.indexOf(jump);
          String[] range = rangeWithLeader(nodes);
          Clients clients = new Clients(writing, reading, history, key);
          clients.start();
          // the clients have a route to the leader before the fault
          Await.until(STEP, "a write and a read of " + key + " before the fault",
              () -> clients.acked.get() > 0 && clients.reads.get() > 0);
          String leader = range[0];
          int ackedBefore = clients.acked.get();
          int readsBefore = clients.reads.get();
          clocks.get(leader).set(jump.raft());
          for (int i = 1; i < range.length; i++) {
            net.cut(leader, range[i], NetNamespaces.Cut.DROP);
          }
          note(journal, key + ": " + leader + " cut from " + List.of(range).subList(1, range.length) + ", " + jump);
          if (jump.wall().isEmpty()) {
            TimeUnit.MILLISECONDS.sleep(CUT.toMillis()); // the fault: clients keep going meanwhile
          }
          for (Duration wall : jump.wall()) {
            clocks.get(leader).setWall(wall);
            nodes.awaitLog(leader, "clock agent: wall clock offset " + wall.toMillis() + " ms", STEP);
            TimeUnit.MILLISECONDS.sleep(CUT.toMillis() / jump.wall().size()); // the fault lasts its share
          }
          int ackedDuring = clients.acked.get() - ackedBefore;
          int readsDuring = clients.reads.get() - readsBefore;
          net.heal();
          clocks.get(leader).set(Duration.ZERO);
          clocks.get(leader).setWall(Duration.ZERO);
          int ackedAtHeal = clients.acked.get();
          int readsAtHeal = clients.reads.get();
          Await.until(STEP, "a write and a read of " + key + " after the heal",
              () -> clients.acked.get() > ackedAtHeal && clients.reads.get() > readsAtHeal);
          clients.stop();
          note(journal, key + ": during the cut " + ackedDuring + " writes acknowledged, " + readsDuring
              + " reads; in all " + clients.acked + " writes acknowledged, " + clients.ambiguous + " ambiguous, "
              + clients.reads + " reads");
          assertThat(ackedDuring).as("the followers elected a leader that acknowledged writes during the cut, "
              + jump + "\n" + journal).isPositive();
          assertThat(readsDuring).as("reads completed during the cut, " + jump + "\n" + journal).isPositive();
        }
        note(journal, "checking " + history.operations().size() + " operations");
        Linearizability.Report report = Linearizability.check(history.operations());
        String summary = "clock faults: " + journal + "\n" + report;
        System.out.println(summary);
        if (!report.linearizable()) {
          Files.createDirectories(logs);
          Files.write(logs.resolve("history.txt"), history.operations().stream()
              .sorted(Comparator.comparingLong(Operation::invoke)).map(Object::toString).toList());
        }
        assertThat(report.anomalies()).as("linearizability under clock jumps\n" + summary).isEmpty();
      }
    }
  }

  private static void note(List<String> journal, String line) {
    journal.add(line);
    System.out.println("clock faults: " + line); // at once: a run that hangs still shows how far it got
  }

  /**
   * Two writers of unique values and two readers of one key, each a client of the history, paced (a
   * history of a few thousand operations keeps the checker's search small).
   */
  private static final class Clients {
    private final RangeKvClient writing;
    private final RangeKvClient reading;
    private final History history;
    private final String key;
    private final AtomicBoolean stop = new AtomicBoolean();
    private final AtomicInteger acked = new AtomicInteger();
    private final AtomicInteger reads = new AtomicInteger();
    private final AtomicInteger ambiguous = new AtomicInteger();
    private final List<Thread> threads = new ArrayList<>();
    private static final AtomicInteger NEXT_CLIENT = new AtomicInteger();

    Clients(RangeKvClient writing, RangeKvClient reading, History history, String key) {
      this.writing = writing;
      this.reading = reading;
      this.history = history;
      this.key = key;
    }

    void start() {
      for (int i = 0; i < 4; i++) {
        int c = NEXT_CLIENT.incrementAndGet();
        boolean writer = i < 2;
        Thread t = new Thread(() -> loop(c, writer), "clock-client-" + c);
        t.setDaemon(true);
        threads.add(t);
        t.start();
      }
    }

    void stop() throws InterruptedException {
      stop.set(true);
      for (Thread t : threads) {
        t.join(TimeUnit.SECONDS.toMillis(30));
        assertThat(t.isAlive()).as(t.getName() + " stopped").isFalse();
      }
    }

    private void loop(int c, boolean writer) {
      Key k = Key.utf8(key);
      int seq = 0;
      while (!stop.get()) {
        Call call = writer ? new Call.Put("c" + c + "-" + (seq++)) : new Call.Get();
        int id = history.invoke(c, key, call);
        try {
          if (call instanceof Call.Put p) {
            writing.put(k, p.value().getBytes(StandardCharsets.UTF_8));
            history.complete(id, new Result.Done());
            acked.incrementAndGet();
          } else {
            Optional<String> v = reading.get(k).map(b -> new String(b, StandardCharsets.UTF_8));
            history.complete(id, new Result.Read(v));
            reads.incrementAndGet();
          }
        } catch (AmbiguousResultException e) {
          history.ambiguous(id);
          ambiguous.incrementAndGet();
        } catch (RangeKvException e) {
          history.failed(id); // definitely not applied, or a read: no effect either way
        }
        try {
          TimeUnit.MILLISECONDS.sleep(writer ? 20 : 10); // pacing the workload, not waiting for a condition
        } catch (InterruptedException e) {
          return;
        }
      }
    }
  }

  /** The clk/ range's leader, then its followers, once it reports a leader and three replicas. */
  private static String[] rangeWithLeader(NodeProcesses nodes) {
    return Await.value(STEP, "the clk/ range reports a leader", () -> {
      Matcher m = CLK_RANGE.matcher(CliRun.of("ranges", "--json", "--cluster", nodes.cluster()).out());
      if (!m.find() || m.group(3) == null) {
        return Optional.empty();
      }
      List<String> replicas = new ArrayList<>();
      Matcher n = NODE_ID.matcher(m.group(2));
      while (n.find()) {
        replicas.add(n.group(1));
      }
      if (replicas.size() != 3) {
        return Optional.empty();
      }
      replicas.remove(m.group(3));
      replicas.add(0, m.group(3));
      return Optional.of(replicas.toArray(String[]::new));
    });
  }

  /** n1 bootstraps and takes a first write, n2 and n3 join; the clk/ range gets its own three replicas. */
  private static void formCluster(NodeProcesses nodes) throws Exception {
    nodes.start("n1", List.of());
    nodes.awaitLog("n1", "bootstrapped a new cluster", STEP);
    String first = nodes.addresses().get(0);
    CliRun.ok(CliRun.of("put", "seed", "1", "--cluster", first));
    nodes.start("n2", List.of(first));
    nodes.start("n3", List.of(first));
    nodes.awaitLog("n2", "joined the cluster", STEP);
    nodes.awaitLog("n3", "joined the cluster", STEP);
    CliRun.await(STEP, r -> r.out().contains("3 nodes, 3 live"), "every node live", "nodes", "--cluster",
        nodes.cluster());
    CliRun.ok(CliRun.of("split", "--at", "clk/", "--cluster", nodes.cluster()));
  }
}
