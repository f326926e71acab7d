/**
 * Testcontainers service connections for the Spring Boot auto-configuration: a JDBC database container annotated
 * {@code @ServiceConnection(name = "shard-tenancy-directory")} becomes the directory database, each one annotated
 * {@code @ServiceConnection(name = "shard-tenancy-shard")} a shard (its id the container label
 * {@code io.github.shardtenancy.shard-id}, or else its database name). The factories are registered in
 * {@code META-INF/spring.factories}; there is nothing to call.
 */
@NullMarked
package io.github.shardtenancy.testcontainers;

import org.jspecify.annotations.NullMarked;
