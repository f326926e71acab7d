/**
 * Work across tenants and shards: runs of a function per tenant with completion marks, and scatter-gather queries.
 */
package io.github.shardtenancy.internal.tasks;
