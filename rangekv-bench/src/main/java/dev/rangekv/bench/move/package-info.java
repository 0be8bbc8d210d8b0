/**
 * Replica-move benchmark harness: time to move a large range between nodes with and without a
 * bandwidth limit, and the write throughput of other ranges meanwhile. Depends on rangekv-server.
 */
package dev.rangekv.bench.move;
