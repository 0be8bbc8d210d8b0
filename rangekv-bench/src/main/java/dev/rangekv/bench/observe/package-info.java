/** What the node's metrics cost per call, measured on the real meters. */
package dev.rangekv.bench.observe;
