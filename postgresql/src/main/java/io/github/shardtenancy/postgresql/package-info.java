/**
 * PostgreSQL: the fence dialect of a PostgreSQL shard (found with {@link java.util.ServiceLoader}), {@code COPY} for
 * moves, and the {@code LISTEN}/{@code NOTIFY} watcher of a PostgreSQL directory
 * ({@link io.github.shardtenancy.postgresql.DirectoryWatcher}).
 */
@NullMarked
package io.github.shardtenancy.postgresql;

import org.jspecify.annotations.NullMarked;
