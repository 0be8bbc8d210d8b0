/**
 * {@code rangekv start}: one node process (its own store and Raft logs) that bootstraps a new cluster
 * or joins one, and runs until SIGTERM / Ctrl-C; {@code rangekv node remove}: forget a dead node.
 */
package dev.rangekv.cli.node;
