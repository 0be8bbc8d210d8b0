/**
 * Split decisions: by size (near the byte midpoint the store finds), by load (weighted median of
 * sampled keys, only after sustained load, declined when one key dominates), append-aware (after the
 * last written key, leaving an empty tail), and pre-split plans. Pure functions of {@code core.cluster}
 * data; the controller in {@code core.controller} and the server call them.
 */
package dev.rangekv.core.split;
