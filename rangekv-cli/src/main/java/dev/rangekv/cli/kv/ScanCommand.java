package dev.rangekv.cli.kv;

import dev.rangekv.cli.cluster.CliException;
import dev.rangekv.cli.cluster.ClusterCommand;
import dev.rangekv.client.KeyValue;
import dev.rangekv.client.ScanPageResult;
import dev.rangekv.client.routing.Await;
import dev.rangekv.client.scan.ScanCursor;
import dev.rangekv.client.scan.ScanOptions;
import dev.rangekv.core.key.Key;
import dev.rangekv.core.key.RangeEnd;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code rangekv scan}: keys in {@code [--from, --to)} in key order (or reverse), up to {@code --limit},
 * then the cursor to continue from. The cursor is the last key returned (seed 000: page by last key,
 * never by range and offset), so it stays valid across splits and moves.
 */
@Command(name = "scan", mixinStandardHelpOptions = true,
    description = "List keys in [--from, --to) in order; prints a cursor to continue when --limit cut it short.")
public final class ScanCommand extends ClusterCommand {
  @Option(names = "--from", paramLabel = "KEY", description = "first key (inclusive; default: the start)")
  String from;

  @Option(names = "--to", paramLabel = "KEY", description = "end key (exclusive; default: +infinity)")
  String to;

  @Option(names = "--limit", defaultValue = "100", description = "most entries printed; 0 = all (default ${DEFAULT-VALUE})")
  long limit;

  @Option(names = "--reverse", description = "descending key order")
  boolean reverse;

  @Option(names = "--from-cursor", paramLabel = "CURSOR", description = "continue after a cursor printed by an earlier scan")
  String cursor;

  @Override
  protected void execute(List<String> addresses) {
    if (limit < 0) {
      throw usageError("--limit must be >= 0, got " + limit, null);
    }
    Key lo = from == null ? Key.EMPTY : Key.of(parseBytes(from, "--from"));
    RangeEnd hi = to == null ? RangeEnd.INFINITY : RangeEnd.at(Key.of(parseBytes(to, "--to")));
    if (!hi.isInfinite() && lo.compareTo(hi.key()) > 0) { // the server's rule: lo > hi is invalid, not empty
      throw CliException.invalidInput("invalid argument (scan.bounds): --from " + lo + " is after --to " + hi.key(), null);
    }
    ScanOptions scanOptions = ScanOptions.defaults().withReverse(reverse);
    if (cursor != null) {
      ScanCursor c;
      try {
        c = ScanCursor.decode(cursor);
      } catch (IllegalArgumentException e) {
        throw usageError("--from-cursor: " + e.getMessage(), e);
      }
      if (c.reverse() != reverse && given("--reverse")) {
        throw usageError("--from-cursor was printed by a scan in the other direction", null);
      }
      scanOptions = scanOptions.withAfter(c);
    }
    ScanOptions first = scanOptions;
    List<KeyValue> entries = new ArrayList<>();
    Optional<ScanCursor> next = kvRun(addresses, c -> collect(c, lo, hi, first, entries));
    print(entries, next);
  }

  /** Pages until {@code limit} entries or the end; the cursor is empty when nothing is left. */
  private Optional<ScanCursor> collect(dev.rangekv.client.RangeKvClient client, Key lo, RangeEnd hi, ScanOptions start,
      List<KeyValue> into) {
    ScanOptions o = start;
    while (true) {
      long want = limit == 0 ? 1000 : Math.min(1000, limit - into.size());
      ScanOptions page = o.withPageSize((int) want);
      ScanPageResult r = Await.result(client.scanPageAsync(lo, hi, page), System.nanoTime() + options.timeout().toNanos());
      into.addAll(r.entries());
      if (r.next().isEmpty()) {
        return Optional.empty();
      }
      if (limit > 0 && into.size() >= limit) {
        return r.next();
      }
      o = o.withAfter(r.next().get());
    }
  }

  private void print(List<KeyValue> entries, Optional<ScanCursor> next) {
    if (json()) {
      List<Object> list = new ArrayList<>();
      for (KeyValue kv : entries) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("key", keys().plain(kv.key().toByteArray()));
        m.put("value", keys().plain(kv.value()));
        list.add(m);
      }
      Map<String, Object> m = new LinkedHashMap<>();
      m.put("entries", list);
      m.put("cursor", next.map(ScanCursor::encode).orElse(null));
      printJson(m);
      return;
    }
    for (KeyValue kv : entries) {
      out().println(keys().render(kv.key()) + "\t" + keys().renderValue(kv.value()));
    }
    if (next.isPresent()) {
      out().println("-- " + entries.size() + " entries; more after --from-cursor " + next.get().encode());
    } else {
      out().println("-- " + entries.size() + " entries; end of scan");
    }
  }
}
