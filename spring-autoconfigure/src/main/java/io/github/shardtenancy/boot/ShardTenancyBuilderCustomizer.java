package io.github.shardtenancy.boot;

import io.github.shardtenancy.ShardTenancy;
import io.github.shardtenancy.ShardTenancyBuilder;

/**
 * Customizes the {@link ShardTenancyBuilder} the auto-configuration builds its {@link ShardTenancy} bean with, after
 * the {@code shard-tenancy.*} properties were applied: for example to add an observer, a move hook or a move executor
 * of the application's. Every bean of this type is called, in {@link org.springframework.core.Ordered order}.
 */
@FunctionalInterface
public interface ShardTenancyBuilderCustomizer {

	/**
	 * @param builder the builder, already configured from the properties; never {@code null}
	 */
	void customize(ShardTenancyBuilder builder);

}
