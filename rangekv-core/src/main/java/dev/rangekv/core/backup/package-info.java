/**
 * The pure rules of backup and restore: key spans, whether a backup's ranges cover its span without gap
 * or overlap, which ranges a resumed backup keeps and which it exports again, and the targets a restore
 * writes (clipped, moved under another prefix). No I/O; the CLI's backup commands use it.
 */
package dev.rangekv.core.backup;
