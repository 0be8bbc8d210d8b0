/**
 * Key design: helpers that shape keys so writes spread over ranges (hash-bucket prefixes against the
 * monotonic-key hotspot). Depends on {@code core.key}; nothing in core depends on it. The offline
 * demonstration of the hotspot lives in {@code rangekv-sim}.
 */
package dev.rangekv.core.keydesign;
