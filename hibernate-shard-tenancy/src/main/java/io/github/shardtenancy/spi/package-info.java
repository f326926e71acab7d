/**
 * Contracts integrators implement or feed: fence dialects (one per database, found with
 * {@link java.util.ServiceLoader}), bulk copiers, placement policies, observers, shard migrators and connectors, seeders
 * of new tenants, and the side of the router that directory watchers feed.
 */
@NullMarked
package io.github.shardtenancy.spi;

import org.jspecify.annotations.NullMarked;
