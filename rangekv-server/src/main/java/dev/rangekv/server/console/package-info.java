/**
 * The web console every node serves on its HTTP port: static pages (with ECharts from its WebJar) and a
 * small JSON API over the meta range (nodes, ranges, events, why, key heat map). Read-only; nothing in
 * the node depends on it.
 */
package dev.rangekv.server.console;
