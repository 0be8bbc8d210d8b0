/**
 * The node's shell around dormant ranges: closing a range's group after its dormancy entry applied
 * (storage kept, through the consensus seam), reopening it on the first request or a wake call, and the
 * leader's periodic dormancy decisions (the policy is pure, in {@code dev.rangekv.core.dormancy}).
 * Nothing outside the node package depends on it.
 */
package dev.rangekv.server.dormancy;
