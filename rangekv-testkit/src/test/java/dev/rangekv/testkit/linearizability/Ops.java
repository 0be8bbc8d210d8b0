package dev.rangekv.testkit.linearizability;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/** Builds hand-made histories: each call takes its client, its times and its result. */
final class Ops {
  static final long NEVER = Operation.NEVER;
  final List<Operation> list = new ArrayList<>();
  private final String key;

  Ops(String key) {
    this.key = key;
  }

  static Optional<String> v(String s) {
    return s == null ? Optional.empty() : Optional.of(s);
  }

  private Ops add(int client, Call call, Result result, long invoke, long complete) {
    list.add(new Operation(list.size(), client, key, call, complete == NEVER ? new Result.Unknown() : result, invoke,
        complete));
    return this;
  }

  Ops put(int client, String value, long invoke, long complete) {
    return add(client, new Call.Put(value), new Result.Done(), invoke, complete);
  }

  Ops delete(int client, long invoke, long complete) {
    return add(client, new Call.Delete(), new Result.Done(), invoke, complete);
  }

  /** A get that returned {@code seen} (null: absent). */
  Ops get(int client, String seen, long invoke, long complete) {
    return add(client, new Call.Get(), new Result.Read(v(seen)), invoke, complete);
  }

  Ops casSwapped(int client, String expected, String next, long invoke, long complete) {
    return add(client, new Call.Cas(v(expected), v(next)), new Result.Swapped(), invoke, complete);
  }

  Ops casRefused(int client, String expected, String next, String found, long invoke, long complete) {
    return add(client, new Call.Cas(v(expected), v(next)), new Result.Refused(v(found)), invoke, complete);
  }

  boolean linearizable() {
    return Linearizability.linearizable(list);
  }
}
