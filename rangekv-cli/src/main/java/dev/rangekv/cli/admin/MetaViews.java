package dev.rangekv.cli.admin;

import dev.rangekv.cli.format.KeyFormat;
import dev.rangekv.cli.format.Table;
import dev.rangekv.core.key.KeyText;
import dev.rangekv.proto.EventProto;
import dev.rangekv.proto.FigureProto;
import dev.rangekv.proto.NodeRecord;
import dev.rangekv.proto.RangeDescriptorProto;
import dev.rangekv.proto.RangeStatsProto;
import dev.rangekv.proto.ReplicaProto;
import dev.rangekv.proto.convert.ProtoValues;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.stream.Collectors;

/** How meta records look in tables, one-line summaries and JSON. Stateless. */
public final class MetaViews {
  private static final DateTimeFormatter CLOCK = DateTimeFormatter.ofPattern("HH:mm:ss").withZone(ZoneOffset.UTC);

  private MetaViews() {}

  public static String span(RangeDescriptorProto d, KeyFormat keys) {
    return keys.span(ProtoValues.key(d.getStart()), ProtoValues.end(d.getEnd(), d.getEndInfinite()));
  }

  public static String replicas(RangeDescriptorProto d) {
    return d.getReplicasList().stream().map(ReplicaProto::getNodeId).collect(Collectors.joining(","));
  }

  /** The ranges table: one row per range with its latest stats. */
  public static Table rangesTable(List<RangeStatsProto> ranges, KeyFormat keys) {
    Table t = new Table("RANGE", "SPAN", "GEN", "REPLICAS", "LEADER", "SIZE", "KEYS", "QPS", "STATE");
    for (RangeStatsProto r : ranges) {
      RangeDescriptorProto d = r.getRange();
      t.row("r" + d.getRangeId(), span(d, keys), d.getGeneration(), replicas(d),
          r.getLeaderNodeId().isEmpty() ? "-" : r.getLeaderNodeId(), Table.bytes(r.getBytes()), r.getKeys(),
          qps(r.getReadQps() + r.getWriteQps()), state(r));
    }
    return t;
  }

  /** {@code dormant} (groups closed until a request wakes it) or {@code awake}. */
  public static String state(RangeStatsProto r) {
    return r.getDormant() ? "dormant" : "awake";
  }

  public static String qps(double v) {
    return String.format(Locale.ROOT, v >= 100 ? "%.0f" : "%.1f", v);
  }

  public static Map<String, Object> descriptorJson(RangeDescriptorProto d, KeyFormat keys) {
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("rangeId", d.getRangeId());
    m.put("start", keys.plain(d.getStart().toByteArray()));
    m.put("startHex", HexFormat.of().formatHex(d.getStart().toByteArray()));
    m.put("startText", KeyText.render(ProtoValues.key(d.getStart())));
    m.put("end", d.getEndInfinite() ? null : keys.plain(d.getEnd().toByteArray()));
    m.put("endHex", d.getEndInfinite() ? null : HexFormat.of().formatHex(d.getEnd().toByteArray()));
    m.put("endText", d.getEndInfinite() ? "+inf" : KeyText.render(ProtoValues.key(d.getEnd())));
    m.put("generation", d.getGeneration());
    List<Object> replicas = new ArrayList<>();
    for (ReplicaProto r : d.getReplicasList()) {
      Map<String, Object> rm = new LinkedHashMap<>();
      rm.put("nodeId", r.getNodeId());
      rm.put("address", r.getAddress());
      replicas.add(rm);
    }
    m.put("replicas", replicas);
    return m;
  }

  public static Map<String, Object> rangeJson(RangeStatsProto r, KeyFormat keys) {
    Map<String, Object> m = descriptorJson(r.getRange(), keys);
    m.put("state", state(r));
    m.put("leader", r.getLeaderNodeId().isEmpty() ? null : r.getLeaderNodeId());
    m.put("bytes", r.getBytes());
    m.put("keys", r.getKeys());
    m.put("readQps", r.getReadQps());
    m.put("writeQps", r.getWriteQps());
    return m;
  }

  public static Map<String, Object> nodeJson(NodeRecord n, boolean live, boolean metaLeader) {
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("nodeId", n.getNodeId());
    m.put("address", n.getAddress());
    m.put("raftAddress", n.getRaftAddress());
    m.put("zone", n.getZone());
    m.put("live", live);
    m.put("metaLeader", metaLeader);
    m.put("replicas", n.getReplicaCount());
    m.put("leaders", n.getLeaderCount());
    m.put("dormant", n.getDormantCount());
    m.put("bytes", n.getBytes());
    m.put("qps", n.getQps());
    m.put("lastHeartbeatMillis", n.getLastHeartbeatMillis());
    return m;
  }

  /**
   * {@code #12 21:55:03 split [r3,r9] r3 split at ... — size above max-bytes (bytes=1.2e6 max-bytes=1048576)}:
   * the reason and figures are left out when the detail already says them.
   */
  public static String eventLine(EventProto e) {
    StringBuilder sb = head(e);
    if (!e.getDetail().isEmpty()) {
      sb.append(' ').append(e.getDetail());
    }
    if (!e.getReason().isEmpty() && !e.getDetail().contains(e.getReason())) {
      sb.append(e.getDetail().isEmpty() ? " " : " — ").append(e.getReason());
    }
    if (e.getFiguresCount() > 0 && !e.getDetail().contains(e.getFigures(0).getName() + "=")) {
      sb.append(e.getFiguresList().stream().map(MetaViews::figure).collect(Collectors.joining(" ", " (", ")")));
    }
    return sb.toString();
  }

  /** The line of {@link #eventLine} cut at {@code maxChars} (a live view has no room for every figure). */
  public static String shortEventLine(EventProto e, int maxChars) {
    String line = eventLine(e);
    return line.length() <= maxChars ? line : line.substring(0, Math.max(0, maxChars - 3)) + "...";
  }

  private static StringBuilder head(EventProto e) {
    StringBuilder sb = new StringBuilder();
    sb.append('#').append(e.getSeq()).append(' ').append(CLOCK.format(Instant.ofEpochMilli(e.getAtMillis())))
        .append(' ').append(e.getKind());
    if (e.getRangeIdsCount() > 0) {
      sb.append(e.getRangeIdsList().stream().map(id -> "r" + id).collect(Collectors.joining(",", " [", "]")));
    }
    return sb;
  }

  private static String figure(FigureProto f) {
    double v = f.getValue();
    String text = v == Math.rint(v) && Math.abs(v) < 1e15
        ? Long.toString((long) v)
        : String.format(Locale.ROOT, "%.3g", v);
    return f.getName() + "=" + text;
  }

  public static Map<String, Object> eventJson(EventProto e) {
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("seq", e.getSeq());
    m.put("atMillis", e.getAtMillis());
    m.put("kind", e.getKind());
    m.put("rangeIds", List.copyOf(e.getRangeIdsList()));
    m.put("reason", e.getReason());
    m.put("detail", e.getDetail());
    Map<String, Object> figures = new LinkedHashMap<>();
    for (FigureProto f : e.getFiguresList()) {
      figures.put(f.getName(), f.getValue());
    }
    m.put("figures", figures);
    return m;
  }
}
