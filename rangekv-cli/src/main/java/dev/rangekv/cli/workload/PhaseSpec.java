package dev.rangekv.cli.workload;

import dev.rangekv.cli.workload.KeyChooser.Distribution;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.random.RandomGenerator;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * One phase: a name, an operation mix (integer weights), how it picks existing keys, and the scan
 * length (fixed, or uniform in {@code [1, max]} as YCSB E does). Immutable.
 */
public record PhaseSpec(String name, Map<OpKind, Integer> mix, Distribution distribution, int scanLength,
    boolean scanLengthUniform) {

  /** The longest scan a phase may ask for (one page per range piece). */
  public static final int MAX_SCAN = 10_000;

  /** The phase names {@link #parse} knows, for error messages and help. */
  public static final String KNOWN = "insert, update, read, scanN (e.g. scan10), ycsb-a .. ycsb-f";

  private static final Pattern SCAN = Pattern.compile("scan(\\d{1,6})");
  private static final Pattern YCSB = Pattern.compile("(?:ycsb-)?([a-f])");

  public PhaseSpec {
    mix = Map.copyOf(new EnumMap<>(mix));
    if (mix.isEmpty() || mix.values().stream().anyMatch(w -> w <= 0)) {
      throw new IllegalArgumentException("a phase needs positive weights, got " + mix);
    }
    if (scanLength < 1 || scanLength > MAX_SCAN) {
      throw new IllegalArgumentException("scan length must be in [1, " + MAX_SCAN + "], got " + scanLength);
    }
  }

  /** Parses one phase name (case-insensitive); throws {@link IllegalArgumentException} naming the known ones. */
  public static PhaseSpec parse(String text) {
    String s = text.trim().toLowerCase(Locale.ROOT);
    switch (s) {
      case "insert":
        return simple(s, OpKind.INSERT);
      case "update":
        return simple(s, OpKind.UPDATE);
      case "read":
        return simple(s, OpKind.READ);
      default:
        break;
    }
    Matcher scan = SCAN.matcher(s);
    if (scan.matches()) {
      int n = Integer.parseInt(scan.group(1));
      if (n < 1 || n > MAX_SCAN) {
        throw new IllegalArgumentException("phase '" + text + "': scan length must be in [1, " + MAX_SCAN + "]");
      }
      return new PhaseSpec(s, Map.of(OpKind.SCAN, 1), Distribution.UNIFORM, n, false);
    }
    Matcher ycsb = YCSB.matcher(s);
    if (ycsb.matches()) {
      return ycsb(ycsb.group(1).charAt(0));
    }
    throw new IllegalArgumentException("unknown phase '" + text + "' (known: " + KNOWN + ")");
  }

  /** Parses a comma-separated list of phase names. */
  public static List<PhaseSpec> parseList(String text) {
    List<PhaseSpec> out = new ArrayList<>();
    for (String part : text.split(",")) {
      if (!part.isBlank()) {
        out.add(parse(part));
      }
    }
    if (out.isEmpty()) {
      throw new IllegalArgumentException("no phase named in '" + text + "' (known: " + KNOWN + ")");
    }
    return List.copyOf(out);
  }

  /** YCSB core workloads A–F, with YCSB's default proportions (E: scans of 1..100 keys). */
  private static PhaseSpec ycsb(char letter) {
    String name = "ycsb-" + letter;
    return switch (letter) {
      case 'a' -> new PhaseSpec(name, Map.of(OpKind.READ, 50, OpKind.UPDATE, 50), Distribution.ZIPFIAN, 1, false);
      case 'b' -> new PhaseSpec(name, Map.of(OpKind.READ, 95, OpKind.UPDATE, 5), Distribution.ZIPFIAN, 1, false);
      case 'c' -> new PhaseSpec(name, Map.of(OpKind.READ, 100), Distribution.ZIPFIAN, 1, false);
      case 'd' -> new PhaseSpec(name, Map.of(OpKind.READ, 95, OpKind.INSERT, 5), Distribution.LATEST, 1, false);
      case 'e' -> new PhaseSpec(name, Map.of(OpKind.SCAN, 95, OpKind.INSERT, 5), Distribution.ZIPFIAN, 100, true);
      case 'f' -> new PhaseSpec(name, Map.of(OpKind.READ, 50, OpKind.READ_MODIFY_WRITE, 50), Distribution.ZIPFIAN, 1,
          false);
      default -> throw new IllegalArgumentException("no YCSB workload " + letter);
    };
  }

  private static PhaseSpec simple(String name, OpKind kind) {
    return new PhaseSpec(name, Map.of(kind, 1), Distribution.UNIFORM, 1, false);
  }

  /** True when some operation of the mix needs keys that already exist. */
  public boolean needsExistingKeys() {
    return mix.keySet().stream().anyMatch(k -> k != OpKind.INSERT);
  }

  /** Draws an operation with probability weight / total weight (kinds in enum order). */
  public OpKind pick(RandomGenerator random) {
    int total = 0;
    for (int w : mix.values()) {
      total += w;
    }
    int r = random.nextInt(total);
    for (OpKind k : OpKind.values()) {
      Integer w = mix.get(k);
      if (w != null) {
        r -= w;
        if (r < 0) {
          return k;
        }
      }
    }
    throw new IllegalStateException("weights of " + mix + " do not add up");
  }

  /** The length of the next scan. */
  public int nextScanLength(RandomGenerator random) {
    return scanLengthUniform ? 1 + random.nextInt(scanLength) : scanLength;
  }
}
