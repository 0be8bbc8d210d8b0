/**
 * Group commit as a pure queue: the node's per-range proposal buffer and the client's per-node call
 * batcher both send what arrives while earlier batches are out as the next batch together. No threads
 * here; the shells that send hold a lock around it. Depends on the JDK only.
 */
package dev.rangekv.core.batch;
