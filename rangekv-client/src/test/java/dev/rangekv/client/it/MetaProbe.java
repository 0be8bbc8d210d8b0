package dev.rangekv.client.it;

import dev.rangekv.proto.EventProto;
import dev.rangekv.proto.ListEventsRequest;
import dev.rangekv.proto.ListRangeStatsRequest;
import dev.rangekv.proto.RangeStatsProto;
import dev.rangekv.server.meta.MetaLocator;
import dev.rangekv.server.node.LocalCluster;
import dev.rangekv.server.raft.PeerChannels;
import dev.rangekv.testkit.Await;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.BooleanSupplier;

/** Reads the meta range of a {@link LocalCluster} the way an operator would: ranges with stats, events. */
final class MetaProbe implements AutoCloseable {
  private final PeerChannels channels = new PeerChannels();
  private final MetaLocator meta;

  MetaProbe(LocalCluster cluster) {
    this.meta = new MetaLocator(channels, () -> {
      List<String> out = new ArrayList<>();
      for (int i = 0; i < cluster.size(); i++) {
        if (cluster.isRunning(i)) {
          out.add(cluster.config(i).clientAddress());
        }
      }
      return out;
    });
  }

  List<RangeStatsProto> ranges() {
    return meta.call(s -> s.listRangeStats(ListRangeStatsRequest.getDefaultInstance()), Duration.ofSeconds(30))
        .getRangesList();
  }

  List<EventProto> events() {
    return meta.call(s -> s.listEvents(ListEventsRequest.getDefaultInstance()), Duration.ofSeconds(30)).getEventsList();
  }

  List<EventProto> events(String kind) {
    return events().stream().filter(e -> e.getKind().equals(kind)).toList();
  }

  /** Ranges led by each node id, as the latest heartbeats report. */
  Map<String, Integer> leaderCounts() {
    Map<String, Integer> out = new HashMap<>();
    for (RangeStatsProto r : ranges()) {
      if (!r.getLeaderNodeId().isEmpty()) {
        out.merge(r.getLeaderNodeId(), 1, Integer::sum);
      }
    }
    return out;
  }

  /** Like {@link #await}, but a timeout's message also shows the meta range's ranges and recent events. */
  void awaitOrDump(String what, Duration timeout, BooleanSupplier condition) {
    awaitOrDump(what, timeout, condition, () -> "");
  }

  /** Like {@link #awaitOrDump(String, Duration, BooleanSupplier)}; a timeout's message ends with {@code more}'s text. */
  void awaitOrDump(String what, Duration timeout, BooleanSupplier condition, java.util.function.Supplier<String> more) {
    try {
      await(what, timeout, condition);
    } catch (AssertionError e) {
      throw new AssertionError(e.getMessage() + "\n" + describe() + "\n" + more.get(), e);
    }
  }

  /** The ranges (id@generation, replicas, leader, bytes, qps) and the last 40 events, for failure messages. */
  String describe() {
    StringBuilder sb = new StringBuilder("ranges:");
    for (RangeStatsProto r : ranges()) {
      sb.append("\n  r").append(r.getRange().getRangeId()).append('@').append(r.getRange().getGeneration())
          .append(' ').append(r.getRange().getReplicasList().stream().map(p -> p.getNodeId()).toList())
          .append(" leader=").append(r.getLeaderNodeId()).append(" bytes=").append(r.getBytes())
          .append(" qps=").append(r.getReadQps() + r.getWriteQps());
    }
    List<EventProto> events = events();
    sb.append("\nevents:");
    for (EventProto e : events.subList(Math.max(0, events.size() - 40), events.size())) {
      sb.append("\n  ").append(e.getSeq()).append(' ').append(e.getKind()).append(' ').append(e.getRangeIdsList())
          .append(' ').append(e.getReason()).append(" | ").append(e.getDetail());
    }
    return sb.toString();
  }

  /** Polls {@code condition} every 200 ms until it holds; fails with {@code what} after {@code timeout}. */
  static void await(String what, Duration timeout, BooleanSupplier condition) {
    // the controller acts on its own ticks: nothing to await but state, polled every 200 ms
    Await.until(timeout, Duration.ofMillis(200), what, condition);
  }

  @Override
  public void close() {
    channels.close();
  }
}
