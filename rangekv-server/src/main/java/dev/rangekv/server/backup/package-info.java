/**
 * Backup and restore on a node: exporting a range's span at one applied point for a backup tool,
 * staging a restore's SST files, and applying a staged restore as one Raft entry of the range (the
 * files ingested as a replica move ingests its span). The apply of that entry and the staging layout
 * live in {@code replica} (SpanIngest, RestoreStaging): nothing in the replica or Raft code depends on this package.
 */
package dev.rangekv.server.backup;
