/**
 * JMH benchmarks of the storage engine ({@code rangekv-storage}): put, get and short scans through
 * {@code NodeStore} on a 1M-key store, comparable with RocksDB's own {@code db_bench}. Nothing depends on
 * this package.
 */
package dev.rangekv.bench.storage;
