/**
 * Keys and their order: {@link dev.rangekv.core.key.Key}, range end bounds, and the order-preserving tuple
 * encoding. Everything else in RangeKV depends on this package; it depends on nothing but the JDK.
 */
package dev.rangekv.core.key;
