/** {@code rangekv cert}: the CA, node and client certificates of a secure cluster (BouncyCastle). */
package dev.rangekv.cli.cert;
