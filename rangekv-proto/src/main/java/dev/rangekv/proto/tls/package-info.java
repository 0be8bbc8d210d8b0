/** TLS identities (PEM files in a certificates directory) shared by nodes, the client and the CLI. */
package dev.rangekv.proto.tls;
