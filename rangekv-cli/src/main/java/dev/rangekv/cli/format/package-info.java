/**
 * How the command prints and reads things: keys as text or hex, aligned tables for people, JSON for
 * scripts. Pure formatting; no I/O beyond the writer it is given, no cluster access.
 */
package dev.rangekv.cli.format;
