package dev.rangekv.client.it;

import static org.assertj.core.api.Assertions.assertThat;

import dev.rangekv.client.RangeKvClient;
import dev.rangekv.client.RangeKvException;
import dev.rangekv.core.key.Key;
import dev.rangekv.proto.EventProto;
import dev.rangekv.proto.RangeStatsProto;
import dev.rangekv.proto.ReplicaProto;
import dev.rangekv.proto.convert.ProtoValues;
import dev.rangekv.server.node.LocalCluster;
import java.time.Duration;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.BooleanSupplier;
import java.util.function.Predicate;
import java.util.function.Supplier;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Killing a whole zone of a 5-node in-JVM cluster in 3 zones (z1: n1, n4, n5; z2: n2; z3: n3), and
 * what must hold before and after. Before: the controller is quiet, as its own state says (a move of a
 * 3-replica range swaps its replicas in one joint configuration change, whose two majorities both
 * survive the loss of z1, but a range of fewer replicas still adds before it removes, and 2 of 4 voters
 * are no majority). After: every range spread over the 3 zones serves a write and a read of its own keys.
 */
final class ZoneLoss {
  static final List<String> ZONES = List.of("z1", "z2", "z3", "z1", "z1");

  private ZoneLoss() {}

  static String zoneOf(String nodeId) {
    return ZONES.get(Integer.parseInt(nodeId.substring(1)) - 1);
  }

  static Set<String> zones(RangeStatsProto r) {
    Set<String> out = new HashSet<>();
    for (ReplicaProto p : r.getRange().getReplicasList()) {
      out.add(zoneOf(p.getNodeId()));
    }
    return out;
  }

  /**
   * Every node runs, the meta range's voters span the 3 zones, no node's controller (the meta leader's,
   * or one that lost the meta leadership and still finishes its steps) has a replica move in flight, and
   * every range's leader has the Raft configuration its descriptor names (a node finishes an add or a
   * remove it was asked for even when its caller is gone).
   */
  static boolean quiet(LocalCluster cluster) {
    for (int i = 0; i < cluster.size(); i++) {
      if (!cluster.isRunning(i)) {
        return false;
      }
      var controller = cluster.node(i).metaNode().controller();
      if (controller.isPresent() && !controller.get().movesInFlight().isEmpty()) {
        return false;
      }
    }
    var metaNode = cluster.node(ControllerClusters.metaLeader(cluster)).metaNode();
    Set<String> voterZones = new HashSet<>();
    metaNode.group().orElseThrow().voterIds().forEach(v -> voterZones.add(zoneOf(v)));
    if (voterZones.size() != 3) {
      return false;
    }
    List<String> mismatches = RaftViews.confMismatches(cluster);
    if (!mismatches.isEmpty() && !mismatches.toString().equals(lastMismatches)) {
      // the controllers are at rest but a replica change is not over: worth seeing in the test's output
      System.err.println("not quiet yet, Raft configurations ahead of their descriptors: " + mismatches);
    }
    lastMismatches = mismatches.toString();
    return mismatches.isEmpty();
  }

  private static volatile String lastMismatches = "";

  /** The meta range's voters as its leader has them; empty while there is no leader. */
  static List<String> metaVoters(LocalCluster cluster) {
    try {
      return cluster.node(ControllerClusters.metaLeader(cluster)).metaNode().group().orElseThrow().voterIds();
    } catch (AssertionError e) { // between two meta leaders
      return List.of();
    }
  }

  /**
   * No range's replica moved back where it came from among the events after {@code afterSeq} (a stretch
   * of steady load, where the rebalancer once moved replicas between two nodes of z1 tick after tick).
   */
  static void assertNoMoveUndone(List<EventProto> events, long afterSeq) {
    Pattern moved = Pattern.compile("r(\\d+) moved (\\S+) -> (\\S+)");
    Map<String, String> last = new HashMap<>();
    Map<String, EventProto> lastEvent = new HashMap<>();
    for (EventProto e : events) {
      Matcher m = moved.matcher(e.getDetail());
      if (e.getSeq() <= afterSeq || !e.getKind().equals("move") || !m.find()) {
        continue;
      }
      String undo = m.group(1) + " " + m.group(3) + "->" + m.group(2);
      EventProto before = lastEvent.get(m.group(1));
      assertThat(last.get(m.group(1))).as("range r%s moved back: %s (%s) after %s (%s)", m.group(1), e.getDetail(),
          e.getReason(), before == null ? "" : before.getDetail(), before == null ? "" : before.getReason())
          .isNotEqualTo(undo);
      last.put(m.group(1), m.group(1) + " " + m.group(2) + "->" + m.group(3));
      lastEvent.put(m.group(1), e);
    }
  }

  /** Stops n1, n4 and n5: all of z1. */
  static void killZ1(LocalCluster cluster) {
    cluster.stop(0);
    cluster.stop(3);
    cluster.stop(4);
  }

  /**
   * Each range of {@code ranges} that {@code spread} selects takes a write and reads it back; a timeout
   * shows each running node's view of that range's Raft group and the controller's recent events.
   */
  static void assertServed(LocalCluster cluster, MetaProbe meta, RangeKvClient client, List<RangeStatsProto> ranges,
      Predicate<RangeStatsProto> spread) {
    for (RangeStatsProto r : ranges) {
      if (!spread.test(r)) {
        continue;
      }
      long rangeId = r.getRange().getRangeId();
      Key start = ProtoValues.key(r.getRange().getStart());
      Key inside = start.concat(Key.of(new byte[] {0})); // the smallest key after the range's start
      awaitServed("range r" + rangeId + " at " + start + " reads and writes with z1 dead", Duration.ofMinutes(2),
          () -> RaftViews.describe(cluster, rangeId) + "\n" + describeOrWhyNot(meta), () -> {
            client.put(inside, new byte[] {1});
            assertThat(client.get(inside)).isPresent();
          });
    }
  }

  /** The meta range's ranges and events, or why they could not be read. */
  static String describeOrWhyNot(MetaProbe meta) {
    try {
      return meta.describe();
    } catch (RuntimeException e) {
      return "meta range unreadable: " + e;
    }
  }

  interface Call {
    void run();
  }

  /** Retries {@code call} while it fails with a client error (an election, a route refresh); a timeout names the last. */
  static void awaitServed(String what, Duration timeout, Call call) {
    awaitServed(what, timeout, () -> "", call);
  }

  /** Like {@link #awaitServed(String, Duration, Call)}; a timeout's message ends with {@code context}'s text. */
  static void awaitServed(String what, Duration timeout, Supplier<String> context, Call call) {
    RuntimeException[] last = {null};
    try {
      MetaProbe.await(what, timeout, () -> {
        try {
          call.run();
          return true;
        } catch (RangeKvException e) {
          last[0] = e;
          return false;
        }
      });
    } catch (AssertionError e) {
      throw new AssertionError(e.getMessage() + "; last failure: " + last[0] + "\n" + context.get(), last[0]);
    }
  }

  /** A condition that must hold on {@code times} polls in a row spanning more than two controller ticks. */
  static final class Steady implements BooleanSupplier {
    private final int times;
    private final BooleanSupplier condition;
    private int streak;
    private long since;

    Steady(int times, BooleanSupplier condition) {
      this.times = times;
      this.condition = condition;
    }

    @Override
    public boolean getAsBoolean() {
      boolean ok;
      try {
        ok = condition.getAsBoolean();
      } catch (AssertionError | RuntimeException e) { // no meta leader at this instant
        ok = false;
      }
      long now = System.nanoTime();
      if (!ok) {
        streak = 0;
        return false;
      }
      if (streak++ == 0) {
        since = now;
      }
      return streak >= times && now - since > ControllerClusters.config().tickMillis() * 2_000_000L;
    }
  }
}
