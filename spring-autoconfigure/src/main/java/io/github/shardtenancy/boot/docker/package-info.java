/**
 * Docker Compose service connections: the directory and the shard databases of a {@code compose.yaml} that Spring
 * Boot's Docker Compose support starts, as {@link io.github.shardtenancy.boot.ShardTenancyDirectoryConnectionDetails}
 * and {@link io.github.shardtenancy.boot.ShardConnectionDetails}. Active when {@code spring-boot-docker-compose} is on
 * the class path.
 */
@NullMarked
package io.github.shardtenancy.boot.docker;

import org.jspecify.annotations.NullMarked;
