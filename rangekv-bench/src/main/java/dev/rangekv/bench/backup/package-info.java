/**
 * Backup and restore benchmark harness: a generated data set of many ranges restored into and backed
 * up from an in-JVM cluster through the CLI's commands, against RocksDB's own SST write and ingest of the
 * same data, and the latency of foreground writes during a backup with and without a rate limit.
 */
package dev.rangekv.bench.backup;
