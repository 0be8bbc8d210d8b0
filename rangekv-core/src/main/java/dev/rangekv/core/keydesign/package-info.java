/**
 * Key design: helpers that shape keys so writes spread over ranges (hash-bucket prefixes against the
 * monotonic-key hotspot) and the pure hotspot demonstration the CLI prints. Depends on {@code
 * core.key} and {@code core.rangemap}; nothing in core depends on it.
 */
package dev.rangekv.core.keydesign;
