package dev.rangekv.server.security;

/** What a call needs from its caller's certificate. */
public enum Role {
  /** Any certificate of the cluster's CA (the KV API, the read-only meta API, health). */
  CLIENT("a client certificate of this cluster"),
  /** User {@code root} or a node (split, merge, move, presplit, node remove). */
  ADMIN("the admin role (a client certificate of user root)"),
  /** A node certificate of this cluster (replica, registration, heartbeat and node admin services). */
  NODE("a node certificate of this cluster (internal service)");

  private final String text;

  Role(String text) {
    this.text = text;
  }

  /** How an error names the role. */
  public String text() {
    return text;
  }
}
