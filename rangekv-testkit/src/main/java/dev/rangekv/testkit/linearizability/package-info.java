/**
 * A linearizability checker for histories of concurrent clients over shared keys: each key a register
 * (put, get, delete, compare-and-set), searched with the Wing-Gong algorithm and Lowe's just-in-time
 * linearization, memoising (linearized set, state) as Knossos and Porcupine do. Operations whose
 * outcome is unknown never complete: they may take effect at any point after their invocation, or never.
 * Pure (no I/O; the recorder's clock is passed in). Only tests depend on it.
 */
package dev.rangekv.testkit.linearizability;
