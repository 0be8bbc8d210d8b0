/**
 * The admin commands on the meta API ({@code ranges}, {@code nodes}, {@code events}, {@code why},
 * {@code split}, {@code merge}, {@code move}, {@code presplit}, {@code placement}) and how their records are shown. The
 * demo reuses the views here for its live lines.
 */
package dev.rangekv.cli.admin;
