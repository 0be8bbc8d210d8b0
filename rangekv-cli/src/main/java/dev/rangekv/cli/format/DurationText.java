package dev.rangekv.cli.format;

import java.time.Duration;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import picocli.CommandLine;

/** Durations on the command line: {@code 500ms}, {@code 20s}, {@code 2m}, {@code 1h}; a bare number is seconds. */
public final class DurationText implements CommandLine.ITypeConverter<Duration> {
  private static final Pattern FORM = Pattern.compile("(\\d+)(ms|s|m|h)?");

  @Override
  public Duration convert(String value) {
    return parse(value);
  }

  public static Duration parse(String value) {
    Matcher m = FORM.matcher(value.trim().toLowerCase(Locale.ROOT));
    if (!m.matches()) {
      throw new CommandLine.TypeConversionException(
          "'" + value + "' is not a duration (e.g. 500ms, 20s, 2m, 1h)");
    }
    long n = Long.parseLong(m.group(1));
    String unit = m.group(2) == null ? "s" : m.group(2);
    return switch (unit) {
      case "ms" -> Duration.ofMillis(n);
      case "m" -> Duration.ofMinutes(n);
      case "h" -> Duration.ofHours(n);
      default -> Duration.ofSeconds(n);
    };
  }

  /** {@code 1m05s}-style text for people. */
  public static String format(Duration d) {
    long s = d.toSeconds();
    return s >= 60 ? String.format(Locale.ROOT, "%dm%02ds", s / 60, s % 60) : s + "s";
  }
}
