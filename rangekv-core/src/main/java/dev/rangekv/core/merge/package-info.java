/**
 * Merge decisions: two neighbouring ranges both small and cold, together under max-bytes, neither split
 * within the cooldown, are merged; on different replica sets they are co-located first. Pure functions
 * of {@code core.cluster} data.
 */
package dev.rangekv.core.merge;
