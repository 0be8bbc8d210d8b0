/** What the node's metrics cost per call, measured on the real meters (issue 16). */
package dev.rangekv.bench.observe;
