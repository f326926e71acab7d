/**
 * The Flyway migrations of the directory database and of the shard fence, and a migrator that runs them
 * ({@link io.github.shardtenancy.flyway.ShardTenancyFlyway}): the alternative to the Liquibase changelogs, built from
 * the same change sets.
 */
@NullMarked
package io.github.shardtenancy.flyway;

import org.jspecify.annotations.NullMarked;
