package dev.rangekv.cli.admin;

import dev.rangekv.cli.cluster.ClusterCommand;
import dev.rangekv.cli.format.KeyFormat;
import dev.rangekv.cli.format.Table;
import dev.rangekv.core.cluster.InvalidRuleException;
import dev.rangekv.core.cluster.LabelConstraint;
import dev.rangekv.core.cluster.PlacementRule;
import dev.rangekv.core.cluster.PlacementRules;
import dev.rangekv.core.key.Key;
import dev.rangekv.core.key.RangeEnd;
import dev.rangekv.proto.ListPlacementRequest;
import dev.rangekv.proto.ListPlacementResponse;
import dev.rangekv.proto.ListRangeStatsRequest;
import dev.rangekv.proto.RangeStatsProto;
import dev.rangekv.proto.RemovePlacementRequest;
import dev.rangekv.proto.SetPlacementRequest;
import dev.rangekv.proto.SetPlacementResponse;
import dev.rangekv.proto.convert.PlacementProtos;
import dev.rangekv.proto.convert.ProtoValues;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import picocli.CommandLine.ArgGroup;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine;

/**
 * {@code rangekv placement set|list|remove}: placement rules pinning key spans to zones or labelled
 * nodes, with a replica count and leader preferences. {@code set --span tenant/42/ --zones eu-1} pins
 * every key starting with {@code tenant/42/}; the controller splits ranges at rule boundaries and moves
 * replicas (rate-limited) until the ranges conform.
 */
@Command(name = "placement", mixinStandardHelpOptions = true,
    description = "Placement rules: pin key spans to zones or labelled nodes, replicas per span, leader zones.",
    subcommands = {PlacementRulesCommand.Set.class, PlacementRulesCommand.ListRules.class,
        PlacementRulesCommand.Remove.class})
public final class PlacementRulesCommand implements Runnable {
  @CommandLine.Spec
  CommandLine.Model.CommandSpec spec;

  @Override
  public void run() {
    throw new CommandLine.ParameterException(spec.commandLine(), "missing subcommand: set, list or remove");
  }

  /** The span of a rule: a key prefix, or explicit bounds. */
  static final class Span {
    @Option(names = "--span", paramLabel = "PREFIX", description = "every key starting with PREFIX (e.g. tenant/42/)")
    String prefix;

    @ArgGroup(exclusive = false)
    Bounds bounds;

    static final class Bounds {
      @Option(names = "--start", required = true, paramLabel = "KEY", description = "first key of the span")
      String start;

      @Option(names = "--end", paramLabel = "KEY", description = "exclusive end (default: the end of the keyspace)")
      String end;
    }

    /** The span as (start, end); bad keys are usage errors. */
    static Object[] resolve(Span span, KeyFormat keys, CommandLine cmd) {
      try {
        if (span.prefix != null) {
          Key p = keys.parseKey(span.prefix);
          if (p.isEmpty()) {
            throw new CommandLine.ParameterException(cmd, "--span: empty prefix (use --start \"\" for the whole keyspace)");
          }
          return new Object[] {p, p.prefixEnd()};
        }
        Key start = keys.parseKey(span.bounds.start);
        RangeEnd end = span.bounds.end == null ? RangeEnd.INFINITY : RangeEnd.at(keys.parseKey(span.bounds.end));
        if (!end.isAbove(start)) {
          throw new CommandLine.ParameterException(cmd, "--end must be above --start");
        }
        return new Object[] {start, end};
      } catch (IllegalArgumentException e) {
        throw new CommandLine.ParameterException(cmd, e.getMessage(), e);
      }
    }
  }

  /** {@code placement set}. */
  @Command(name = "set", mixinStandardHelpOptions = true,
      description = "Set (add or replace) the rule of a span; refused when no node could ever meet it.")
  public static final class Set extends ClusterCommand {
    @ArgGroup(exclusive = true, multiplicity = "1")
    Span span;

    @Option(names = "--replicas", defaultValue = "3", paramLabel = "N", description = "1, 3 or 5 (default 3)")
    int replicas;

    @Option(names = "--zones", split = ",", paramLabel = "ZONE", description = "replicas only in these zones, spread over them")
    List<String> zones = new ArrayList<>();

    @Option(names = "--constraint", split = ",", paramLabel = "+KEY=VALUE|-KEY=VALUE",
        description = "required (+) or forbidden (-) node labels, e.g. +disk=ssd,-zone=us-1")
    List<String> constraints = new ArrayList<>();

    @Option(names = "--leaders", split = ",", paramLabel = "ZONE", description = "preferred leader zones, best first")
    List<String> leaders = new ArrayList<>();

    @Override
    protected void execute(List<String> addresses) {
      Object[] s = Span.resolve(span, keys(), spec.commandLine());
      PlacementRule rule;
      try {
        List<LabelConstraint> cs = constraints.stream().map(LabelConstraint::parse).toList();
        rule = new PlacementRule((Key) s[0], (RangeEnd) s[1], replicas, cs, zones, leaders, 0);
      } catch (InvalidRuleException e) {
        throw new CommandLine.ParameterException(spec.commandLine(), e.getMessage(), e);
      }
      SetPlacementResponse r = metaChange(addresses, stub -> stub.setPlacement(SetPlacementRequest.newBuilder()
          .setRule(PlacementProtos.proto(rule)).build()));
      PlacementRule stored = PlacementProtos.rule(r.getRule());
      if (json()) {
        Map<String, Object> m = ruleJson(stored, keys(), Optional.empty());
        m.put("setVersion", r.getVersion());
        m.put("warning", r.getWarning());
        printJson(m);
        return;
      }
      out().println("rule " + keys().span(stored.start(), stored.end()) + " " + stored.terms() + " set (version "
          + stored.version() + ")");
      if (!r.getWarning().isEmpty()) {
        out().println("warning: " + r.getWarning());
      }
    }
  }

  /** {@code placement list}. */
  @Command(name = "list", mixinStandardHelpOptions = true,
      description = "List the placement rules and how many ranges under each are out of conformance.")
  public static final class ListRules extends ClusterCommand {
    @Override
    protected void execute(List<String> addresses) {
      ListPlacementResponse resp = metaRead(addresses, s -> s.listPlacement(ListPlacementRequest.getDefaultInstance()));
      PlacementRules rules = PlacementProtos.rules(resp.getVersion(), resp.getRulesList());
      Map<PlacementRule, Integer> outOf = new LinkedHashMap<>();
      rules.rules().forEach(r -> outOf.put(r, 0));
      for (RangeStatsProto r : metaRead(addresses, s -> s.listRangeStats(ListRangeStatsRequest.getDefaultInstance()))
          .getRangesList()) {
        if (!r.getPlacementViolations().isEmpty()) {
          rules.ruleFor(ProtoValues.descriptor(r.getRange())).ifPresent(x -> outOf.merge(x, 1, Integer::sum));
        }
      }
      if (json()) {
        List<Object> list = new ArrayList<>();
        rules.rules().forEach(r -> list.add(ruleJson(r, keys(), Optional.of(outOf.get(r)))));
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("version", rules.version());
        m.put("rules", list);
        printJson(m);
        return;
      }
      Table t = new Table("SPAN", "REPLICAS", "ZONES", "CONSTRAINTS", "LEADERS", "VERSION", "OUT-OF-CONFORMANCE");
      for (PlacementRule r : rules.rules()) {
        t.row(keys().span(r.start(), r.end()), r.replicas(), r.zones().isEmpty() ? "-" : String.join(",", r.zones()),
            r.constraints().isEmpty() ? "-" : String.join(",", r.constraints().stream().map(Object::toString).toList()),
            r.leaderZones().isEmpty() ? "-" : String.join(",", r.leaderZones()), r.version(), outOf.get(r));
      }
      t.print(out());
      out().println("-- " + rules.rules().size() + " rules, version " + rules.version());
    }
  }

  /** {@code placement remove}. */
  @Command(name = "remove", mixinStandardHelpOptions = true, description = "Remove the rule of exactly this span.")
  public static final class Remove extends ClusterCommand {
    @ArgGroup(exclusive = true, multiplicity = "1")
    Span span;

    @Override
    protected void execute(List<String> addresses) {
      Object[] s = Span.resolve(span, keys(), spec.commandLine());
      Key start = (Key) s[0];
      RangeEnd end = (RangeEnd) s[1];
      PlacementRule removed = PlacementProtos.rule(metaChange(addresses, stub -> stub.removePlacement(
          RemovePlacementRequest.newBuilder().setStart(ProtoValues.bytes(start)).setEnd(ProtoValues.endBytes(end))
              .setEndInfinite(end.isInfinite()).build())).getRemoved());
      if (json()) {
        printJson(ruleJson(removed, keys(), Optional.empty()));
        return;
      }
      out().println("rule " + keys().span(removed.start(), removed.end()) + " " + removed.terms() + " removed");
    }
  }

  static Map<String, Object> ruleJson(PlacementRule r, KeyFormat keys, Optional<Integer> outOfConformance) {
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("start", keys.plain(r.start().toByteArray()));
    m.put("startHex", HexFormat.of().formatHex(r.start().toByteArray()));
    m.put("end", r.end().isInfinite() ? null : keys.plain(r.end().key().toByteArray()));
    m.put("endHex", r.end().isInfinite() ? null : HexFormat.of().formatHex(r.end().key().toByteArray()));
    m.put("replicas", r.replicas());
    m.put("zones", r.zones());
    m.put("constraints", r.constraints().stream().map(Object::toString).toList());
    m.put("leaderZones", r.leaderZones());
    m.put("version", r.version());
    outOfConformance.ifPresent(n -> m.put("rangesOutOfConformance", n));
    return m;
  }
}
