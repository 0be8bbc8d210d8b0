/**
 * Test support shared by every module's tests: the seeded random harness ({@link
 * dev.rangekv.testkit.Property}) and its generator ({@link dev.rangekv.testkit.Gen}). Only tests may
 * depend on this package; it depends on the JDK alone.
 */
package dev.rangekv.testkit;
