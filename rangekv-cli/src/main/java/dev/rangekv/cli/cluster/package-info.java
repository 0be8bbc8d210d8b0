/**
 * Reaching a running cluster from the command line: the shared options ({@code --cluster},
 * {@code --timeout}, {@code --json}, {@code --hex}), the KV client session, and meta calls that follow
 * the meta leader hint. Failures become {@link dev.rangekv.cli.cluster.CliException}s: one line for people,
 * printed by {@link dev.rangekv.cli.cluster.RunOutput} whether picocli or the KV fast path ran the command.
 */
package dev.rangekv.cli.cluster;
