/**
 * The meta range: a Raft group on the first (up to 3) nodes holding the range map, the node records
 * and the event log ({@code state}), and the controller that runs on its leader, calls the core
 * policies each tick and executes their decisions one rate-limited step at a time ({@code controller}).
 */
package dev.rangekv.meta;
