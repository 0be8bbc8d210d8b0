/**
 * Simulators behind {@code rangekv sim}: they format and time what the pure simulations in
 * {@code dev.rangekv.sim.partition} compute. Nothing else depends on this package.
 */
package dev.rangekv.cli.sim;
