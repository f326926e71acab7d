package io.github.shardtenancy.internal;

import io.github.shardtenancy.ShardTenancy;
import io.github.shardtenancy.internal.jdbc.ConnectionGuard;
import io.github.shardtenancy.internal.topology.Topology;
import io.github.shardtenancy.spi.ShardTenancyProvider;
import io.github.shardtenancy.spi.TenancyPlan;

/**
 * The library's {@link ShardTenancyProvider}, registered in {@code META-INF/services}: builds the {@link Wiring} of
 * a builder's plan. Thread-safe (stateless).
 */
public final class Provider implements ShardTenancyProvider {

	@Override
	public ShardTenancy create(TenancyPlan plan) {
		Topology topology = new Topology();
		topology.setPoolListeners(plan.shardPoolListeners);
		try {
			for (TenancyPlan.Shard shard : plan.shards) {
				topology.addShard(shard.shardId(), shard.dataSource(), shard.owned());
			}
		}
		catch (RuntimeException ex) {
			topology.close(); // closes the owned pools added so far; the caller closes the others it owns
			throw ex;
		}
		return new DefaultShardTenancy(new Wiring(plan, topology));
	}

	@Override
	public void checkTenantSwitch(String tenantId) {
		ConnectionGuard.checkSwitch(tenantId);
	}

}
