package dev.rangekv.cli.nemesis;

import java.util.ArrayList;
import java.util.Collections;
import dev.rangekv.cli.clock.ClockControl;
import java.util.List;
import java.util.Optional;
import java.util.Random;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import java.util.function.Supplier;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The network faults of the nemesis, on {@link NetNamespaces}: each picks its victims (seeded), applies
 * the fault, holds it a few election timeouts, and heals. Partitions are cut, at random, by blackhole or
 * unreachable routes (fail fast) or nftables drops (silent). Kinds: a majority cut from a minority; the
 * meta leader isolated from every node; a range's leader isolated from its followers (clients still reach
 * it); a bridge (two halves that share one node); one-way loss; random packet loss; a slow link; and a
 * range's leader isolated from its followers while its Raft clock jumps back or forward
 * ({@link ClockControl}). Not thread-safe: the nemesis thread only.
 */
final class NetFaults {
  static final List<String> KINDS = List.of("partition-majority", "isolate-meta-leader", "isolate-range-leader",
      "bridge", "one-way-loss", "packet-loss", "slow-link", "clock-jump");
  /** Below and above Ratis's leader step-down wait (2 s), back and forward: see ClockFaultIT. */
  private static final List<java.time.Duration> JUMPS = List.of(java.time.Duration.ofMillis(-1900),
      java.time.Duration.ofSeconds(-10), java.time.Duration.ofMillis(1500), java.time.Duration.ofSeconds(10));
  private static final Pattern META_LEADER = Pattern.compile("meta leader (n\\d+)");
  private static final Pattern RANGE_LEADER = Pattern.compile(
      "\\{\"rangeId\":(\\d+),.*?\"replicas\":\\[(.*?)\\].*?\"leader\":(?:null|\"([^\"]+)\")");
  private static final Pattern NODE_ID = Pattern.compile("\"nodeId\":\"([^\"]+)\"");

  private final NetNamespaces net;
  private final List<String> ids;
  private final SplittableRandom random;
  private final Consumer<String> note;
  private final Supplier<String> nodesView;
  private final Supplier<String> rangesJson;
  private final java.util.Map<String, ClockControl> clocks;

  NetFaults(NetNamespaces net, java.util.Map<String, ClockControl> clocks, SplittableRandom random,
      Consumer<String> note, Supplier<String> nodesView, Supplier<String> rangesJson) {
    this.clocks = java.util.Map.copyOf(clocks);
    this.ids = List.copyOf(new java.util.TreeMap<>(clocks).keySet()); // in order: a seed replays its choices
    this.net = net;
    this.random = random;
    this.note = note;
    this.nodesView = nodesView;
    this.rangesJson = rangesJson;
  }

  /** Applies fault {@code kind}, holds it, and heals it (also when interrupted or failing). */
  void inject(String kind) throws Exception {
    try {
      switch (kind) {
        case "partition-majority" -> {
          List<String> shuffled = shuffled(ids);
          List<String> minority = shuffled.subList(0, (ids.size() - 1) / 2);
          partition(minority, shuffled.subList(minority.size(), shuffled.size()));
        }
        case "isolate-meta-leader" -> {
          Matcher m = META_LEADER.matcher(nodesView.get());
          String leader = m.find() ? m.group(1) : pick(ids);
          partition(List.of(leader), ids.stream().filter(id -> !id.equals(leader)).toList());
        }
        case "isolate-range-leader" -> isolateRangeLeader();
        case "clock-jump" -> {
          isolateRangeLeader().ifPresent(leader -> {
            java.time.Duration jump = pick(JUMPS);
            note.accept(leader + "'s clock jumps " + jump.toMillis() + " ms");
            set(leader, jump);
          });
        }
        case "bridge" -> {
          List<String> shuffled = shuffled(ids);
          String bridge = shuffled.get(0);
          List<String> rest = shuffled.subList(1, shuffled.size());
          note.accept("bridge " + bridge);
          partition(rest.subList(0, rest.size() / 2), rest.subList(rest.size() / 2, rest.size()));
        }
        case "one-way-loss" -> {
          String node = pick(ids);
          boolean outgoing = random.nextBoolean();
          note.accept("every packet " + (outgoing ? "from " : "to ") + node + " dropped, the other way flows");
          for (String other : ids) {
            if (!other.equals(node)) {
              net.drop(outgoing ? node : other, outgoing ? other : node);
            }
          }
        }
        case "packet-loss" -> {
          String node = pick(ids);
          int percent = 20 + random.nextInt(21);
          note.accept(node + " loses " + percent + "% of what other nodes send it");
          net.loss(node, percent);
        }
        case "slow-link" -> {
          String node = pick(ids);
          String rate = random.nextBoolean() ? "256kbit" : "1mbit";
          note.accept(node + " sends at " + rate);
          net.slow(node, rate);
        }
        default -> throw new IllegalArgumentException(kind);
      }
      // a few election timeouts (1-2 s): long enough for new leaders, stale leases and client timeouts
      TimeUnit.MILLISECONDS.sleep(3000 + random.nextInt(5000));
    } finally {
      net.heal();
      clocks.keySet().forEach(id -> set(id, java.time.Duration.ZERO));
      note.accept("healed");
    }
  }

  private void set(String id, java.time.Duration offset) {
    try {
      clocks.get(id).set(offset);
    } catch (java.io.IOException e) {
      throw new java.io.UncheckedIOException(e);
    }
  }

  /** Cuts a range's leader from its followers; returns the leader, or empty if no range reports one. */
  private Optional<String> isolateRangeLeader() throws Exception {
    List<String[]> ranges = new ArrayList<>(); // leader, then its followers
    Matcher m = RANGE_LEADER.matcher(rangesJson.get());
    while (m.find()) {
      if (m.group(3) != null) {
        List<String> replicas = new ArrayList<>();
        Matcher n = NODE_ID.matcher(m.group(2));
        while (n.find()) {
          replicas.add(n.group(1));
        }
        replicas.remove(m.group(3));
        replicas.add(0, m.group(3));
        ranges.add(replicas.toArray(String[]::new));
      }
    }
    if (ranges.isEmpty()) {
      note.accept("no range reports a leader: nothing isolated");
      return Optional.empty();
    }
    String[] chosen = pick(ranges);
    List<String> followers = List.of(chosen).subList(1, chosen.length);
    partition(List.of(chosen[0]), followers);
    return Optional.of(chosen[0]);
  }

  /** Cuts every node of {@code a} from every node of {@code b}, all by one method chosen at random. */
  private void partition(List<String> a, List<String> b) throws Exception {
    NetNamespaces.Cut how = NetNamespaces.Cut.values()[random.nextInt(NetNamespaces.Cut.values().length)];
    note.accept(a + " | " + b + " by " + how.name().toLowerCase(java.util.Locale.ROOT));
    for (String x : a) {
      for (String y : b) {
        net.cut(x, y, how);
      }
    }
  }

  private List<String> shuffled(List<String> from) {
    List<String> out = new ArrayList<>(from);
    Collections.shuffle(out, new Random(random.nextLong()));
    return out;
  }

  private <T> T pick(List<T> from) {
    return from.get(random.nextInt(from.size()));
  }
}
