/**
 * Merging a range with its right neighbour: freeze the right range, wait until every replica applied
 * the freeze, extend the left range over the right's span with one command, drop the right group (its
 * data stays: it now belongs to the left). Depends on move, raft and replica; the node wires it up.
 */
package dev.rangekv.server.merge;
