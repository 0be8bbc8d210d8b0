/**
 * Request-key sampling: a fixed-size weighted sample of the keys a range served in one interval, whose
 * weights estimate the load behind each key, for load splits and hot-key detection. Pure algorithms;
 * the server adds whatever concurrency it needs. Depends on {@code core.key} and {@code core.cluster}.
 */
package dev.rangekv.core.sampling;
