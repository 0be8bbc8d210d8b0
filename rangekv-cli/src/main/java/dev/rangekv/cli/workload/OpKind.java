package dev.rangekv.cli.workload;

import java.util.Locale;

/** The operations a phase mixes. */
public enum OpKind {
  /** A linearizable get of an existing key. */
  READ,
  /** A put over an existing key. */
  UPDATE,
  /** A put of the next new key ({@code user%010d}, increasing). */
  INSERT,
  /** Up to N keys from a start key, in order. */
  SCAN,
  /** YCSB F: a get, then a compare-and-set from the value read to a new one. */
  READ_MODIFY_WRITE;

  /** The lowercase name used in output ({@code read-modify-write}). */
  public String label() {
    return name().toLowerCase(Locale.ROOT).replace('_', '-');
  }
}
