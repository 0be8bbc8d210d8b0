package dev.rangekv.core.backup;

/**
 * Why a backup's ranges do not tile its span: a gap (keys no range holds), an overlap (keys two
 * ranges hold, or ranges out of key order) or a range outside the span.
 *
 * @param kind what is wrong
 * @param index the position of the range where it shows (the range after a gap; ranges.size() for a gap at the end)
 * @param at the keys concerned
 */
public record CoverageProblem(Kind kind, int index, KeySpan at) {
  /** What is wrong. */
  public enum Kind { GAP, OVERLAP, OUTSIDE }

  public String describe() {
    return switch (kind) {
      case GAP -> "gap: no range holds " + at;
      case OVERLAP -> "overlap: range " + index + " overlaps the one before it (or is out of key order) at " + at;
      case OUTSIDE -> "range " + index + " " + at + " lies outside the backup's span";
    };
  }
}
