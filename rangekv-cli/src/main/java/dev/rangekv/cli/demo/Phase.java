package dev.rangekv.cli.demo;

import dev.rangekv.core.key.Key;
import dev.rangekv.core.key.KeyCodec;

/**
 * The two key designs of seed 000's order-events store, each its own table prefix so the phases do
 * not share ranges. Keys are {@link KeyCodec} tuples, so byte order is tuple order.
 */
enum Phase {
  /** (event_ts, order_id, seq): every new event sorts after every existing one. */
  BY_TIME("events_by_time", "(event_ts, order_id, seq)", "the monotonic trap"),
  /** (order_id, event_ts, seq) with random order ids: writes land all over the keyspace. */
  BY_ORDER("events_by_order", "(order_id, event_ts, seq)", "writes spread");

  private final String table;
  private final String key;
  private final String note;

  Phase(String table, String key, String note) {
    this.table = table;
    this.key = key;
    this.note = note;
  }

  /** The key of event {@code seq} of {@code orderId} at {@code eventTsMillis}. */
  Key key(long eventTsMillis, String orderId, long seq) {
    KeyCodec.Builder b = KeyCodec.tuple().addString(table);
    return this == BY_TIME
        ? b.addLong(eventTsMillis).addString(orderId).addLong(seq).build()
        : b.addString(orderId).addLong(eventTsMillis).addLong(seq).build();
  }

  /** True when {@code text} (an event's detail) names this phase's table, e.g. in an alert's key prefix. */
  boolean mentionedIn(String text) {
    return text.contains(table);
  }

  String keyShape() {
    return key;
  }

  String title() {
    return "phase " + (ordinal() + 1) + " " + key + ": " + note;
  }

  String shortName() {
    return "phase " + (ordinal() + 1);
  }
}
