/**
 * The range map: immutable snapshots of range descriptors tiling the keyspace, with lookup, batched
 * lookup, scan planning, split, merge and replace-by-generation; and range ids ({@code RangeIds}: the
 * meta range's allocator of small increasing ids). Routers and the meta range build on it; it depends
 * only on {@code core.key}.
 */
package dev.rangekv.core.rangemap;
