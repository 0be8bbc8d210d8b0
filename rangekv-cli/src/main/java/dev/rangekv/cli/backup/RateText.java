package dev.rangekv.cli.backup;

import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** Parses a bandwidth such as {@code 20MB}, {@code 512KiB} or {@code 1000000} (bytes per second). */
final class RateText {
  private static final Pattern RATE = Pattern.compile("(\\d+(?:\\.\\d+)?)\\s*([kmg]i?b?|b)?(?:/s)?");

  private RateText() {}

  static long bytesPerSecond(String text) {
    Matcher m = RATE.matcher(text.strip().toLowerCase(Locale.ROOT));
    if (!m.matches()) {
      throw new IllegalArgumentException("--rate: not a bandwidth: " + text + " (e.g. 20MB, 512KiB)");
    }
    double v = Double.parseDouble(m.group(1));
    String unit = m.group(2) == null ? "b" : m.group(2);
    long scale = switch (unit.charAt(0)) {
      case 'k' -> unit.contains("i") ? 1L << 10 : 1_000L;
      case 'm' -> unit.contains("i") ? 1L << 20 : 1_000_000L;
      case 'g' -> unit.contains("i") ? 1L << 30 : 1_000_000_000L;
      default -> 1L;
    };
    long bytes = (long) (v * scale);
    if (bytes <= 0) {
      throw new IllegalArgumentException("--rate must be positive, got " + text);
    }
    return bytes;
  }
}
