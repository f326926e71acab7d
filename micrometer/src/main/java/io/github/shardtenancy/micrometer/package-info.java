/**
 * Micrometer metrics of the router, the shard fence, the retry and moves
 * ({@link io.github.shardtenancy.micrometer.ShardTenancyMetrics}) and of the PostgreSQL directory watcher
 * ({@link io.github.shardtenancy.micrometer.DirectoryWatcherMetrics}), and HikariCP's meters per shard pool
 * ({@link io.github.shardtenancy.micrometer.ShardPoolMetrics}). The core library runs without this module.
 */
@NullMarked
package io.github.shardtenancy.micrometer;

import org.jspecify.annotations.NullMarked;
