package dev.rangekv.cli.demo;

import dev.rangekv.client.keydesign.BucketedKeyspace;
import dev.rangekv.core.key.Key;
import dev.rangekv.core.key.KeyCodec;
import java.time.Instant;

/**
 * The three key designs of seed 000's order-events store, each its own table name so the phases do
 * not share keys. Keys are {@link KeyCodec} tuples, so byte order is tuple order; the bucketed design
 * puts a {@link BucketedKeyspace} bucket byte (a hash of the order id) before its tuple.
 */
enum Phase {
  /** (event_ts, order_id, seq): every new event sorts after every existing one. */
  BY_TIME("events_by_time", "(event_ts, order_id, seq)", "the monotonic trap"),
  /** (order_id, event_ts, seq) with random order ids: writes land all over the keyspace. */
  BY_ORDER("events_by_order", "(order_id, event_ts, seq)", "writes spread, time order lost"),
  /** (bucket, event_ts, order_id, seq): B time-ordered streams, read back by B merged scans. */
  BUCKETED("events_bucketed", "(bucket, event_ts, order_id, seq)", "writes spread, time order kept");

  static final BucketedKeyspace BUCKETS = new BucketedKeyspace(DemoSettings.BUCKETS);

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
    return switch (this) {
      case BY_TIME -> b.addTimestamp(Instant.ofEpochMilli(eventTsMillis)).addString(orderId).addLong(seq).build();
      case BY_ORDER -> b.addString(orderId).addTimestamp(Instant.ofEpochMilli(eventTsMillis)).addLong(seq).build();
      case BUCKETED -> BUCKETS.key(Key.utf8(orderId),
          b.addTimestamp(Instant.ofEpochMilli(eventTsMillis)).addString(orderId).addLong(seq).build());
    };
  }

  /** The (unbucketed) key where this table's events at {@code eventTsMillis} begin: a time window's bound. */
  Key timeBound(long eventTsMillis) {
    return KeyCodec.tuple().addString(table).addTimestamp(Instant.ofEpochMilli(eventTsMillis)).build();
  }

  /** True when {@code text} (an event's detail) names this phase's table, e.g. in an alert's key prefix. */
  boolean mentionedIn(String text) {
    return text.contains(table);
  }

  /** The key every (unbucketed) key of this table starts with. */
  Key tablePrefix() {
    return KeyCodec.tuple().addString(table).build();
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
