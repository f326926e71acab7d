package io.github.shardtenancy.internal.ids;

import org.jspecify.annotations.Nullable;

/**
 * What a session factory's multi-tenant connection provider offers to hand the {@link ShardSafeIdGenerator} and the
 * {@link IdStrategyIntegrator} the tenancy's {@link ShardIds} (found by unwrapping the provider as this type).
 */
public interface IdSource {

	/** @return the tenancy's ids and id check, or {@code null} for none */
	@Nullable ShardIds ids();

}
