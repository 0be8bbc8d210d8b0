/**
 * The Java admin API: cluster changes through the meta range's leader (placement rules), for tools and
 * operators' code. Depends on the public protocol only, never on server or meta.
 */
package dev.rangekv.client.admin;
