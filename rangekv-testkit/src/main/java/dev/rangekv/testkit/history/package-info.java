/**
 * History checking for fault runs (Jepsen-style): models of registers and counters that take each
 * operation with its outcome (acknowledged, ambiguous, definitely failed) and judge every read, scan
 * and final state against what those outcomes allow; a log of fault windows that attributes failed
 * operations to the fault in force. Pure (no I/O, no clock: times are passed in). Only tests depend on it.
 */
package dev.rangekv.testkit.history;
