package dev.rangekv.cli.format;

import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.List;

/**
 * A text table with aligned columns: numeric-looking columns right-aligned, the rest left-aligned.
 * Collects rows, then prints them at once. Not thread-safe.
 */
public final class Table {
  private final List<String> headers;
  private final List<List<String>> rows = new ArrayList<>();

  public Table(String... headers) {
    this.headers = List.of(headers);
  }

  public Table row(Object... cells) {
    if (cells.length != headers.size()) {
      throw new IllegalArgumentException("row has " + cells.length + " cells, table has " + headers.size() + " columns");
    }
    List<String> r = new ArrayList<>(cells.length);
    for (Object c : cells) {
      r.add(String.valueOf(c));
    }
    rows.add(r);
    return this;
  }

  public int size() {
    return rows.size();
  }

  public void print(PrintWriter out) {
    int n = headers.size();
    int[] width = new int[n];
    boolean[] numeric = new boolean[n];
    for (int i = 0; i < n; i++) {
      width[i] = headers.get(i).length();
      boolean allNumbers = true;
      boolean anyNumber = false;
      for (List<String> r : rows) {
        String c = r.get(i);
        width[i] = Math.max(width[i], c.length());
        boolean number = c.matches("[-+]?[0-9][0-9,.]*( ?[KMGT]?i?B|%|/s)?");
        anyNumber |= number;
        allNumbers &= number || c.equals("-"); // "-" stands for a missing number
      }
      numeric[i] = anyNumber && allNumbers;
    }
    line(out, headers, width, numeric);
    for (List<String> r : rows) {
      line(out, r, width, numeric);
    }
    out.flush();
  }

  private static void line(PrintWriter out, List<String> cells, int[] width, boolean[] numeric) {
    StringBuilder sb = new StringBuilder();
    for (int i = 0; i < cells.size(); i++) {
      String c = cells.get(i);
      String pad = " ".repeat(width[i] - c.length());
      boolean last = i == cells.size() - 1;
      sb.append(numeric[i] ? pad + c : last ? c : c + pad);
      if (!last) {
        sb.append("  ");
      }
    }
    out.println(sb);
  }

  /** Bytes for people: {@code 512 B}, {@code 1.5 MiB}. */
  public static String bytes(long n) {
    if (n < 1024) {
      return n + " B";
    }
    String[] units = {"KiB", "MiB", "GiB", "TiB"};
    double v = n;
    int u = -1;
    while (v >= 1024 && u < units.length - 1) {
      v /= 1024;
      u++;
    }
    return String.format(java.util.Locale.ROOT, "%.1f %s", v, units[u]);
  }
}
