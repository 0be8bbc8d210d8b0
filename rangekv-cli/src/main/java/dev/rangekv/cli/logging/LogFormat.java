package dev.rangekv.cli.logging;

/** A node's log line format: text (dated, one line per event) or JSON (one object per line). */
public enum LogFormat {
  TEXT, JSON
}
