package dev.rangekv.server.observe;

import dev.rangekv.core.cluster.Event;
import dev.rangekv.core.rangemap.RangeDescriptor;
import dev.rangekv.meta.controller.Controller;
import dev.rangekv.meta.controller.StatsBook;
import dev.rangekv.meta.state.MetaGroup;
import dev.rangekv.meta.state.MetaView;
import dev.rangekv.proto.convert.ProtoValues;
import dev.rangekv.server.meta.MetaNode;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;

/**
 * Runs once per controller tick on a node hosting a meta replica and acts only while that replica leads:
 * counts the controller's new events (splits, merges, moves, transfers, declined decisions by reason,
 * alerts by kind) into meters, publishes the moves in flight, and appends a column to the
 * {@link KeyHeatRing}. Declined decisions and alerts are counted as the event log keeps them (a repeat
 * with the same reason is logged once a minute), not once per evaluation.
 *
 * <p>Called from one scheduler thread; {@link #heat()} may be read from any.
 */
public final class MetaLeaderSampler {
  /** A reason text becomes a label value only for the first this many; later ones count as "other". */
  static final int MAX_REASONS = 32;
  /** An hour of 10 s ticks, with room for faster ticks. */
  static final int RING_COLUMNS = 720;
  static final long RING_WINDOW_MILLIS = 3_600_000;
  /** A leader report older than this many ticks counts as no load (its node stopped reporting). */
  static final int STALE_TICKS = 3;

  private final MetaNode meta;
  private final MeterRegistry registry;
  private final KeyHeatRing heat = new KeyHeatRing(RING_COLUMNS, RING_WINDOW_MILLIS);
  private final Set<String> reasons = new HashSet<>();
  private volatile int movesInFlight;
  private boolean leading;
  private long lastSeq;

  public MetaLeaderSampler(MetaNode meta, MeterRegistry registry) {
    this.meta = meta;
    this.registry = registry;
    Gauge.builder("rangekv.controller.moves.in.flight", this, s -> s.movesInFlight)
        .description("replica moves the controller is executing (meta leader only)")
        .strongReference(true).register(registry);
  }

  public KeyHeatRing heat() {
    return heat;
  }

  /** One tick's sample; never throws (a failed sample is skipped, the next tick tries again). */
  public void sample() {
    try {
      Optional<MetaGroup> group = meta.group();
      Optional<Controller> controller = meta.controller();
      if (group.isEmpty() || controller.isEmpty() || !group.get().isLeader()) {
        leading = false;
        movesInFlight = 0;
        return;
      }
      MetaView view = group.get().view();
      List<Event> events = view.events(leading ? lastSeq : 0, 0, 0);
      if (!leading) {
        // a new term here: count from now on, and start a fresh heat map
        leading = true;
        heat.clear();
      } else {
        events.forEach(this::count);
      }
      if (!events.isEmpty()) {
        lastSeq = events.get(events.size() - 1).seq();
      }
      movesInFlight = controller.get().movesInFlight().size();
      if (!view.ranges().isEmpty()) { // empty until the meta range is bootstrapped
        heat.add(column(view, controller.get().stats(), System.currentTimeMillis()));
      }
    } catch (RuntimeException e) {
      // the meta replica closed or lost leadership mid-sample: nothing to record this tick
      leading = false;
    }
  }

  private void count(Event e) {
    Counter.builder("rangekv.controller.events").description("controller events logged, by kind")
        .tag("kind", e.kind()).register(registry).increment();
    if (e.kind().endsWith("-declined")) {
      Counter.builder("rangekv.controller.declined").description("declined decisions logged, by kind and reason")
          .tag("kind", e.kind()).tag("reason", reasonLabel(e.reason())).register(registry).increment();
    } else if (e.kind().startsWith("alert-")) {
      Counter.builder("rangekv.controller.alerts").description("alerts logged, by kind")
          .tag("kind", e.kind().substring("alert-".length())).register(registry).increment();
    }
  }

  private String reasonLabel(String reason) {
    if (reasons.contains(reason)) {
      return reason;
    }
    if (reasons.size() < MAX_REASONS) {
      reasons.add(reason);
      return reason;
    }
    return "other";
  }

  private KeyHeatRing.Column column(MetaView view, StatsBook stats, long now) {
    long stale = STALE_TICKS * meta.tick().toMillis();
    List<KeyHeatRing.Band> bands = new ArrayList<>();
    for (RangeDescriptor d : view.ranges()) {
      double reads = 0;
      double writes = 0;
      double writeBytes = 0;
      Optional<StatsBook.LeaderReport> r = stats.leaderReport(d.rangeId());
      if (r.isPresent() && now - r.get().receivedMillis() <= stale) {
        reads = r.get().stats().readQps();
        writes = r.get().stats().writeQps();
        writeBytes = r.get().report().writeBytesPerSecond();
      }
      bands.add(new KeyHeatRing.Band(d.rangeId(), ProtoValues.bytes(d.start()), reads, writes, writeBytes));
    }
    return new KeyHeatRing.Column(now, bands);
  }
}
