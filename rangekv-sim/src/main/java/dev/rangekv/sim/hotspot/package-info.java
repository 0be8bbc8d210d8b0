/**
 * The monotonic-key hotspot, computed offline: ids routed through a pre-split range map with and
 * without core's hash-bucket prefix. The CLI's offline demo prints it; nothing in the store uses it.
 */
package dev.rangekv.sim.hotspot;
