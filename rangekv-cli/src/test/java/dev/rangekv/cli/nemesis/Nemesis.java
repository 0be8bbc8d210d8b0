package dev.rangekv.cli.nemesis;

import dev.rangekv.testkit.Await;
import dev.rangekv.cli.CliRun;
import dev.rangekv.cli.clock.ClockControl;
import dev.rangekv.testkit.history.FaultLog;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.TreeMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The fault injector of a run: after a quiet spell it picks the next fault from a seeded shuffle of
 * every kind (so a short run still sees each one), injects it, heals it, and records its window in the
 * {@link FaultLog}. Kinds: kill -9 and restart a node; SIGSTOP/SIGCONT a node; kill the meta leader;
 * kill two replicas of one range in turn; split, merge and move through the CLI's admin commands; and,
 * with the nodes in network namespaces, the network faults of {@link NetFaults}. A round takes process
 * and network faults in turn, so a short run sees both. Each window closes once the cluster reports
 * every node live again.
 */
final class Nemesis {
  static final List<String> KINDS = List.of("kill", "pause", "kill-meta-leader", "kill-two-of-range", "split",
      "merge", "move");
  private static final Pattern RANGE = Pattern.compile("\\{\"rangeId\":(\\d+),.*?\"replicas\":\\[(.*?)\\]");
  private static final Pattern NODE_ID = Pattern.compile("\"nodeId\":\"([^\"]+)\"");
  private static final Pattern META_LEADER = Pattern.compile("meta leader (n\\d+)");
  private static final Duration STEP = Duration.ofSeconds(120);

  private final NodeProcesses nodes;
  private final FaultLog faults;
  private final long origin;
  private final SplittableRandom random;
  private final java.util.Optional<NetFaults> network;
  private final AtomicBoolean stop = new AtomicBoolean();
  final Map<String, Integer> injected = new TreeMap<>();
  final List<String> adminFailures = new CopyOnWriteArrayList<>();
  final List<String> journal = new CopyOnWriteArrayList<>();

  /** With {@code net}, also the network and clock faults of {@link NetFaults} (one clock control per node). */
  Nemesis(NodeProcesses nodes, java.util.Optional<NetNamespaces> net, Map<String, ClockControl> clocks, FaultLog faults,
      long origin, long seed) {
    this.nodes = nodes;
    this.faults = faults;
    this.origin = origin;
    this.random = new SplittableRandom(seed * 41 + 7);
    this.network = net.map(n -> new NetFaults(n, clocks, random.split(),
        line -> note(String.format("%6.1fs   %s", now() / 1e9, line)), () -> cli("nodes").out(),
        () -> cli("ranges", "--json").out()));
  }

  void stop() {
    stop.set(true);
  }

  /** Injects faults until {@link #stop()}; every fault is healed before the next one (and before returning). */
  void run() throws Exception {
    List<String> order = new ArrayList<>();
    while (!stop.get()) {
      if (order.isEmpty()) {
        order.addAll(round());
      }
      TimeUnit.MILLISECONDS.sleep(1500 + random.nextInt(2000)); // a quiet spell: operations must all succeed
      if (stop.get()) {
        break;
      }
      String kind = order.remove(0);
      int window = faults.open(kind, now());
      note(String.format("%6.1fs %s", now() / 1e9, kind));
      try {
        inject(kind);
        awaitAllLive();
      } finally {
        faults.close(window, now());
        injected.merge(kind, 1, Integer::sum);
      }
    }
  }

  /** One round: every kind once, shuffled; process and network kinds alternate while both last. */
  private List<String> round() {
    List<String> process = new ArrayList<>(KINDS);
    Collections.shuffle(process, new java.util.Random(random.nextLong()));
    List<String> net = new ArrayList<>(network.isPresent() ? NetFaults.KINDS : List.of());
    Collections.shuffle(net, new java.util.Random(random.nextLong()));
    List<String> out = new ArrayList<>();
    while (!process.isEmpty() || !net.isEmpty()) {
      if (!net.isEmpty()) {
        out.add(net.remove(0));
      }
      if (!process.isEmpty()) {
        out.add(process.remove(0));
      }
    }
    return out;
  }

  private void inject(String kind) throws Exception {
    if (NetFaults.KINDS.contains(kind)) {
      network.orElseThrow().inject(kind);
      return;
    }
    switch (kind) {
      case "kill" -> killAndRestart(pick(nodes.ids()));
      case "pause" -> {
        String id = pick(nodes.ids());
        nodes.pause(id);
        try {
          TimeUnit.MILLISECONDS.sleep(2000 + random.nextInt(4000)); // the pause is the fault
        } finally {
          nodes.resume(id);
        }
      }
      case "kill-meta-leader" -> {
        Matcher m = META_LEADER.matcher(cli("nodes").out());
        killAndRestart(m.find() ? m.group(1) : pick(nodes.ids()));
      }
      case "kill-two-of-range" -> {
        List<List<String>> all = new ArrayList<>(ranges().values());
        List<String> replicas = all.isEmpty() ? nodes.ids() : pick(all);
        List<String> two = new ArrayList<>(replicas);
        Collections.shuffle(two, new java.util.Random(random.nextLong()));
        for (String id : two.subList(0, Math.min(2, two.size()))) {
          killAndRestart(id);
          awaitAllLive(); // in turn: the second dies only after the first is back
        }
      }
      case "split" -> admin(kind, "split", "--at",
          Workload.writerKey(random.nextInt(4), random.nextInt(Workload.KEYS_PER_WRITER)));
      case "merge" -> {
        List<Long> ids = new ArrayList<>(ranges().keySet());
        if (ids.size() > 1) {
          admin(kind, "merge", "--range", String.valueOf(ids.get(random.nextInt(ids.size() - 1))), "--timeout", "60s");
        }
      }
      case "move" -> {
        Map<Long, List<String>> ranges = ranges();
        List<Long> ids = new ArrayList<>(ranges.keySet());
        if (ids.isEmpty()) {
          adminFailures.add("move: could not list the ranges");
          return;
        }
        long id = ids.get(random.nextInt(ids.size()));
        List<String> replicas = ranges.get(id);
        List<String> others = nodes.ids().stream().filter(n -> !replicas.contains(n)).toList();
        if (!replicas.isEmpty() && !others.isEmpty()) {
          admin(kind, "move", "--range", String.valueOf(id), "--from", pick(replicas), "--to", pick(others),
              "--timeout", "60s");
        }
      }
      default -> throw new IllegalArgumentException(kind);
    }
  }

  private void killAndRestart(String id) throws Exception {
    note(String.format("%6.1fs   kill -9 %s", now() / 1e9, id));
    nodes.kill(id);
    TimeUnit.MILLISECONDS.sleep(1000 + random.nextInt(3000)); // the node stays dead a while: that is the fault
    nodes.restart(id, STEP);
    note(String.format("%6.1fs   %s resumed", now() / 1e9, id));
  }

  private void admin(String kind, String... args) {
    CliRun r = cli(args);
    note(String.format("%6.1fs   %s -> exit %d %s", now() / 1e9, String.join(" ", args), r.exit(),
        (r.out() + r.err()).strip().lines().findFirst().orElse("")));
    if (r.exit() != 0) {
      adminFailures.add(kind + ": " + r.err().strip());
    }
  }

  /** Waits (bounded) until the meta range reports every node live. */
  void awaitAllLive() {
    String want = nodes.ids().size() + " nodes, " + nodes.ids().size() + " live";
    // polling the meta range; no event to wait on
    Await.result(STEP, Duration.ofMillis(500), "every node live", () -> cli("nodes"),
        r -> r.exit() == 0 && r.out().contains(want));
  }

  /** Range id to replica node ids, from the meta range. */
  Map<Long, List<String>> ranges() {
    return parseRanges(cli("ranges", "--json").out());
  }

  /** Range id to replica node ids, from the output of {@code ranges --json}. */
  static Map<Long, List<String>> parseRanges(String json) {
    Map<Long, List<String>> out = new LinkedHashMap<>();
    Matcher m = RANGE.matcher(json);
    while (m.find()) {
      List<String> ids = new ArrayList<>();
      Matcher n = NODE_ID.matcher(m.group(2));
      while (n.find()) {
        ids.add(n.group(1));
      }
      out.put(Long.parseLong(m.group(1)), ids);
    }
    return out;
  }

  private CliRun cli(String... args) {
    List<String> all = new ArrayList<>(List.of(args));
    all.addAll(List.of("--cluster", nodes.cluster()));
    return CliRun.of(all.toArray(String[]::new));
  }

  private <T> T pick(List<T> from) {
    if (from.isEmpty()) {
      throw new IllegalStateException("nothing to pick from");
    }
    return from.get(random.nextInt(from.size()));
  }

  /** Journals a step, and prints it at once: a run that hangs still shows what the nemesis did. */
  private void note(String line) {
    journal.add(line);
    System.out.println("nemesis: " + line);
  }

  private long now() {
    return System.nanoTime() - origin;
  }
}
