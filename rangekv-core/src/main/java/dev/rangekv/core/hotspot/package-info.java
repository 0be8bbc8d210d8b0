/**
 * Hotspot detection: alerts for a monotonic key (the range at the end of the written keys is the
 * hottest for most of a window) and for a hot key (one key carries most of a range's load), each naming
 * the key or prefix and suggesting a key-design fix. Pure functions of {@code core.cluster} data plus a
 * small window state carried between ticks.
 */
package dev.rangekv.core.hotspot;
