/**
 * How the {@code rangekv} command logs (Logback): dated ISO-8601 lines on stderr for every command,
 * plus a rolling file (text or JSON) for a node process; java.util.logging (gRPC, Ratis' shaded gRPC)
 * bridged in; Ratis' stack traces for requests to range groups a node does not run summed up in one
 * line a minute. The thin jar of one-shot commands has no Logback: java.util.logging only ({@link
 * dev.rangekv.cli.logging.CommandLogs}).
 */
package dev.rangekv.cli.logging;
