package io.github.shardtenancy.spi;

import io.github.shardtenancy.ShardTenancy;
import io.github.shardtenancy.ShardTenancyConfigurationException;
import io.github.shardtenancy.TenantSwitchedException;

/**
 * Builds tenancies and answers the tenant context's question; implemented by the library's implementation and found
 * with {@link java.util.ServiceLoader} (as {@code jakarta.persistence.spi.PersistenceProvider} is), so that the API
 * does not depend on the implementation. Not for applications. Implementations are thread-safe.
 */
public interface ShardTenancyProvider {

	/**
	 * @param plan what the builder collected; never {@code null}
	 * @return the tenancy, not started yet; never {@code null}
	 * @throws ShardTenancyConfigurationException if a shard id is invalid or taken, or no fence dialect supports a
	 * shard's database
	 */
	ShardTenancy create(TenancyPlan plan);

	/**
	 * Refuses to bind a tenant on a thread that holds an open connection of another tenant.
	 * @param tenantId the tenant about to be bound; never {@code null}
	 * @throws TenantSwitchedException if the thread holds an open connection of another tenant
	 */
	void checkTenantSwitch(String tenantId);

}
