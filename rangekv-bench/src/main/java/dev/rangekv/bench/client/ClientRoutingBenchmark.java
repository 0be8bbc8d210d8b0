package dev.rangekv.bench.client;

import dev.rangekv.client.routing.BatchPlan;
import dev.rangekv.client.routing.Route;
import dev.rangekv.client.routing.RouteTable;
import dev.rangekv.core.key.Key;
import dev.rangekv.core.key.KeyCodec;
import dev.rangekv.core.rangemap.RangeDescriptor;
import dev.rangekv.core.rangemap.RangeMap;
import dev.rangekv.core.rangemap.RoutedBatch;
import dev.rangekv.proto.MultiGetRequest;
import dev.rangekv.proto.PutRequest;
import dev.rangekv.proto.RangeHeader;
import dev.rangekv.proto.WriteId;
import dev.rangekv.proto.convert.ProtoValues;
import com.google.protobuf.ByteString;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;

/**
 * Client-side cost without the network. {@code routePut}: one cache hit as the router does it (range
 * lookup, leader/replica choice and address, then building the put request with header and write id).
 * {@code batchGetPlan}: a 1,000-key batch get over 100 ranges (sort and dedupe, one merge-walk grouping,
 * one multi-get request built per range). Keys are 8-byte big-endian ids.
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 2, time = 2)
@Measurement(iterations = 3, time = 2)
@Fork(1)
@State(Scope.Benchmark)
public class ClientRoutingBenchmark {
  private static final int RANDOM_KEYS = 1 << 16;

  @Param({"100", "10000"})
  int ranges;

  private RouteTable table;
  private Key[] randomKeys;
  private List<Key> batch;
  private int cursor;
  private final ByteString value = ByteString.copyFrom(new byte[100]);
  private final WriteId writeId = WriteId.newBuilder().setClientId(ByteString.copyFrom(new byte[16])).setRequestId(7).build();

  @Setup(Level.Trial)
  public void setUp() {
    List<Key> splits = new ArrayList<>();
    for (int i = 1; i < ranges; i++) {
      splits.add(KeyCodec.bigEndian((long) i * (Long.MAX_VALUE / ranges)));
    }
    RangeMap map = RangeMap.presplit(splits, 1, List.of("n1", "n2", "n3"));
    Map<String, String> addresses = Map.of("n1", "10.0.0.1:7000", "n2", "10.0.0.2:7000", "n3", "10.0.0.3:7000");
    Map<Long, String> leaders = new HashMap<>();
    for (RangeDescriptor d : map.ranges()) {
      leaders.put(d.rangeId(), "n" + (1 + d.rangeId() % 3));
    }
    table = new RouteTable(map, addresses, leaders);
    SplittableRandom r = new SplittableRandom(42);
    randomKeys = new Key[RANDOM_KEYS];
    for (int i = 0; i < RANDOM_KEYS; i++) {
      randomKeys[i] = KeyCodec.bigEndian(r.nextLong(Long.MAX_VALUE));
    }
    // 1,000 keys spread over the first 100 ranges (all of them when ranges = 100)
    batch = new ArrayList<>(1000);
    long span = Long.MAX_VALUE / ranges * Math.min(100, ranges);
    for (int i = 0; i < 1000; i++) {
      batch.add(KeyCodec.bigEndian(r.nextLong(span)));
    }
  }

  @Benchmark
  public PutRequest routePut() {
    Key key = randomKeys[cursor++ & (RANDOM_KEYS - 1)];
    RangeDescriptor range = table.map().lookup(key);
    Route route = Route.choose(table, range, new HashSet<>(2)).orElseThrow();
    if (route.address().isEmpty()) {
      throw new IllegalStateException("no address");
    }
    return PutRequest.newBuilder()
        .setHeader(RangeHeader.newBuilder().setRangeId(range.rangeId()).setGeneration(range.generation()))
        .setWriteId(writeId)
        .setKey(ProtoValues.bytes(key))
        .setValue(value)
        .build();
  }

  @Benchmark
  public int batchGetPlan() {
    List<Key> sorted = BatchPlan.sortedUnique(batch);
    int bytes = 0;
    for (RoutedBatch g : BatchPlan.group(table.map(), sorted)) {
      MultiGetRequest.Builder b = MultiGetRequest.newBuilder()
          .setHeader(RangeHeader.newBuilder().setRangeId(g.range().rangeId()).setGeneration(g.range().generation()));
      for (Key k : g.keys()) {
        b.addKeys(ProtoValues.bytes(k));
      }
      Route route = Route.choose(table, g.range(), new HashSet<>(2)).orElseThrow();
      bytes += b.build().getKeysCount() + route.node().length();
    }
    return bytes;
  }
}
