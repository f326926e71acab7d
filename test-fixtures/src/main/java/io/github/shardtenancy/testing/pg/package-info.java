/**
 * PostgreSQL servers for tests: embedded binaries or a container, a cluster of directory and shards, PgBouncer.
 */
@NullMarked
package io.github.shardtenancy.testing.pg;

import org.jspecify.annotations.NullMarked;
