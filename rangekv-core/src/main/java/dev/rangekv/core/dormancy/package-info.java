/**
 * Dormant ranges: when an idle range may close its Raft group on every replica (keeping its storage),
 * decided from plain data with the clock passed in. The server's dormancy shell gathers the data,
 * proposes the dormancy command and reopens groups on wake. Depends on the JDK only.
 */
package dev.rangekv.core.dormancy;
