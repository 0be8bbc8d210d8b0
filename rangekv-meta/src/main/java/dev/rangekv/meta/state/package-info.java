/**
 * The meta range's state: descriptors keyed by start key (highest generation wins, the map always
 * tiles), node records, a bounded event log and the range-id allocator (every range but the first gets
 * its id granted here); its Ratis state machine and snapshots.
 */
package dev.rangekv.meta.state;
