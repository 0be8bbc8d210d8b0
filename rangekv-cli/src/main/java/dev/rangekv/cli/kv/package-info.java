/**
 * The KV commands ({@code put}, {@code get}, {@code del}, {@code scan}): one call each through the Java
 * client, which routes by the cached range map and retries on RANGE_MOVED / NOT_LEADER. {@link
 * dev.rangekv.cli.kv.QuickKv} parses their usual command lines without picocli, for a fast start.
 */
package dev.rangekv.cli.kv;
