/**
 * Spring Boot auto-configuration of hibernate-shard-tenancy: {@link io.github.shardtenancy.boot.ShardTenancyProperties}
 * ({@code shard-tenancy.*}), {@link io.github.shardtenancy.boot.ShardTenancyAutoConfiguration} and the failure
 * analyzer of {@link io.github.shardtenancy.ShardTenancyConfigurationException}. Everything else here is internal.
 */
@NullMarked
package io.github.shardtenancy.boot;

import org.jspecify.annotations.NullMarked;
