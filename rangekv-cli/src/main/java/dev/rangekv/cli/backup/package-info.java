/**
 * {@code rangekv backup create|list|show|verify} and {@code rangekv restore}: where a backup is kept
 * (a directory or an S3-compatible bucket), its manifest, and the runs that write, check and restore it.
 * The pure rules (coverage, resume, restore targets) are in {@code dev.rangekv.core.backup}.
 */
package dev.rangekv.cli.backup;
