/**
 * The Liquibase changelogs of the directory database and of the shard fence, and a migrator that runs them
 * ({@link io.github.shardtenancy.liquibase.ShardTenancyMigrations}).
 */
@NullMarked
package io.github.shardtenancy.liquibase;

import org.jspecify.annotations.NullMarked;
