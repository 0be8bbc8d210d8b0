package dev.rangekv.cli.admin;

import com.google.protobuf.ByteString;
import dev.rangekv.cli.cluster.ClusterCommand;
import dev.rangekv.proto.PreSplitRequest;
import dev.rangekv.proto.RangeDescriptorProto;
import dev.rangekv.cli.cluster.MetaCalls;
import dev.rangekv.cli.format.DurationText;
import dev.rangekv.proto.GetMapRequest;
import dev.rangekv.proto.GetMapResponse;
import java.io.PrintWriter;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import picocli.CommandLine;
import picocli.CommandLine.ArgGroup;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code rangekv presplit --at K1,K2 | --uniform N [--scatter]}: splits before load arrives (e.g. a
 * bucketed keyspace's bucket boundaries), optionally scattering the ranges over the live nodes.
 *
 * <p>One call does all the splits, which for a thousand ranges takes minutes, not the seconds the
 * default {@code --timeout} allows one key: without {@code --timeout} it waits up to {@link
 * #DEFAULT_DEADLINE}, and meanwhile prints the map's progress on stderr every {@link #PROGRESS_EVERY}.
 */
@Command(name = "presplit", mixinStandardHelpOptions = true,
    description = "Pre-split at keys, or into N ranges uniform over the 8-byte prefix space; --scatter spreads them."
        + " The new ranges start dormant (no Raft group open; unless the nodes run --dormant-after 0) and wake on"
        + " their first request.")
public final class PresplitCommand extends ClusterCommand {
  static final class Points {
    @Option(names = "--at", split = ",", paramLabel = "KEY", description = "split keys, comma-separated")
    List<String> at;

    @Option(names = "--uniform", paramLabel = "N", description = "this many ranges over the 8-byte prefix space")
    Integer uniform;
  }

  @ArgGroup(exclusive = true, multiplicity = "1")
  Points points;

  @Option(names = "--scatter", description = "spread the resulting ranges' replicas and leaders over live nodes")
  boolean scatter;

  /** The call's deadline when {@code --timeout} is not given. */
  static final Duration DEFAULT_DEADLINE = Duration.ofMinutes(10);
  static final Duration PROGRESS_EVERY = Duration.ofSeconds(5);

  @Override
  protected void execute(List<String> addresses) {
    PreSplitRequest.Builder req = PreSplitRequest.newBuilder().setScatter(scatter);
    if (points.uniform != null) {
      if (points.uniform < 2 || points.uniform > 4096) {
        throw new CommandLine.ParameterException(spec.commandLine(), "--uniform must be in [2, 4096], got " + points.uniform);
      }
      req.setUniform(points.uniform);
    } else {
      for (String k : points.at) {
        byte[] key = parseBytes(k, "--at");
        if (key.length == 0) {
          throw new CommandLine.ParameterException(spec.commandLine(), "--at: empty split key");
        }
        req.addSplitKeys(ByteString.copyFrom(key));
      }
    }
    Duration deadline = given("--timeout") ? options.timeout() : DEFAULT_DEADLINE;
    List<RangeDescriptorProto> ranges;
    try (MetaCalls meta = new MetaCalls(addresses, deadline, options.tls());
        Progress progress = new Progress(addresses, spec.commandLine().getErr())) {
      progress.start();
      ranges = meta.change(s -> s.preSplit(req.build())).getRangesList();
    }
    if (json()) {
      List<Object> list = new ArrayList<>();
      for (RangeDescriptorProto d : ranges) {
        list.add(MetaViews.descriptorJson(d, keys()));
      }
      printJson(list);
      return;
    }
    for (RangeDescriptorProto d : ranges) {
      out().println("r" + d.getRangeId() + " " + MetaViews.span(d, keys()) + " on " + MetaViews.replicas(d));
    }
    out().println("-- " + ranges.size() + " ranges" + (scatter ? ", scattered" : ""));
  }

  /** Polls the range map and prints how far the splits (and with --scatter, the moves) have got. */
  private final class Progress implements AutoCloseable {
    private final List<String> addresses;
    private final PrintWriter err;
    private final ScheduledExecutorService timer = Executors.newSingleThreadScheduledExecutor(r -> {
      Thread t = new Thread(r, "presplit-progress");
      t.setDaemon(true);
      return t;
    });
    private final long start = System.nanoTime();

    Progress(List<String> addresses, PrintWriter err) {
      this.addresses = addresses;
      this.err = err;
    }

    void start() {
      long every = PROGRESS_EVERY.toMillis();
      timer.scheduleWithFixedDelay(this::report, every, every, TimeUnit.MILLISECONDS);
    }

    private void report() {
      try (MetaCalls meta = new MetaCalls(addresses, PROGRESS_EVERY, options.tls())) {
        GetMapResponse map = meta.read(s -> s.getMap(GetMapRequest.getDefaultInstance()));
        err.println(progressLine(map.getRangesList(), Duration.ofNanos(System.nanoTime() - start)));
        err.flush();
      } catch (RuntimeException e) {
        // the meta range is busy with the splits: the next poll reports
      }
    }

    @Override
    public void close() {
      timer.shutdownNow();
    }
  }

  /** "presplit: 312 ranges so far, 120 of them on 3 nodes (25s)": the replica count most ranges have. */
  static String progressLine(List<RangeDescriptorProto> ranges, Duration elapsed) {
    Map<Integer, Integer> byReplicas = new TreeMap<>();
    ranges.forEach(d -> byReplicas.merge(d.getReplicasCount(), 1, Integer::sum));
    int most = byReplicas.isEmpty() ? 0 : Collections.max(byReplicas.keySet());
    return "presplit: " + ranges.size() + " ranges so far, " + byReplicas.getOrDefault(most, 0) + " of them on "
        + most + " nodes (" + DurationText.format(elapsed) + ")";
  }
}
