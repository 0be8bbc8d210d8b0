/**
 * The shared vocabulary of the controller's policies: the stats a server gathers from heartbeats
 * ({@link dev.rangekv.core.policy.ClusterSnapshot}), the {@link dev.rangekv.core.policy.ControllerConfig}
 * they obey, replica {@link dev.rangekv.core.policy.Move}s, and the {@link
 * dev.rangekv.core.policy.Explanation} every decision carries. Plain immutable data; depends on {@code
 * core.key} and {@code core.rangemap} only.
 */
package dev.rangekv.core.policy;
