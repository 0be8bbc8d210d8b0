/**
 * The KV commands ({@code put}, {@code get}, {@code del}, {@code scan}): one call each through the Java
 * client, which routes by the cached range map and retries on RANGE_MOVED / NOT_LEADER.
 */
package dev.rangekv.cli.kv;
