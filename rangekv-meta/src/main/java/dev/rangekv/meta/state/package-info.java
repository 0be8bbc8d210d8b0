/**
 * The meta range's state: descriptors keyed by start key (highest generation wins, the map always
 * tiles), node records and a bounded event log; its Ratis state machine and snapshots.
 */
package dev.rangekv.meta.state;
