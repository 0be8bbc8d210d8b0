/**
 * Key-to-node partitioners (hash mod N, consistent-hash ring, rendezvous, jump, Maglev, bounded
 * loads, directory), the 64-bit hashes they use, replica placement, and pure simulations that
 * measure how keys move and how load spreads. Depends only on {@code core.key};
 * the store never uses it: {@code rangekv sim} and the benchmarks do.
 */
package dev.rangekv.sim.partition;
