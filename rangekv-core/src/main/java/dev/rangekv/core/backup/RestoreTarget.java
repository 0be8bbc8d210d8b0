package dev.rangekv.core.backup;

import java.util.Optional;

/**
 * Where one backed-up range goes in a restore: the keys of the range inside both the backup's span and
 * the requested span, moved by the prefix move. A restore never writes outside these targets, so a
 * backup is never restored over keys it does not hold.
 *
 * @param source the keys restored, in the backup's keyspace
 * @param target the same keys in the cluster's keyspace
 */
public record RestoreTarget(KeySpan source, KeySpan target) {
  /** The target of a range with span {@code range}; empty when it holds none of the restored keys. */
  public static Optional<RestoreTarget> of(KeySpan range, KeySpan backupSpan, KeySpan requested, PrefixMove move) {
    return range.intersect(backupSpan).flatMap(s -> s.intersect(requested))
        .map(s -> new RestoreTarget(s, move.apply(s)));
  }
}
