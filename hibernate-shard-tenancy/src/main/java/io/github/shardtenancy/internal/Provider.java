package io.github.shardtenancy.internal;

import io.github.shardtenancy.ShardTenancy;
import io.github.shardtenancy.internal.jdbc.ConnectionGuard;
import io.github.shardtenancy.spi.ShardTenancyProvider;
import io.github.shardtenancy.spi.TenancyPlan;

/**
 * The library's {@link ShardTenancyProvider}, registered in {@code META-INF/services}: builds the {@link Wiring} of
 * a builder's plan. Thread-safe (stateless).
 */
public final class Provider implements ShardTenancyProvider {

	@Override
	public ShardTenancy create(TenancyPlan plan) {
		Wiring.Plan wiring = new Wiring.Plan();
		try {
			for (TenancyPlan.Shard shard : plan.shards) {
				wiring.topology.addShard(shard.shardId(), shard.dataSource(), shard.owned());
				wiring.registrations
					.add(new Wiring.Registration(shard.shardId(), shard.region(), shard.jdbcUrl(), shard.username()));
			}
		}
		catch (RuntimeException ex) {
			wiring.topology.close(); // closes the owned pools added so far; the caller closes the others it owns
			throw ex;
		}
		wiring.directoryDataSource = plan.directoryDataSource;
		wiring.ownsDirectoryPool = plan.ownsDirectoryPool;
		wiring.routerSettings = plan.routerSettings;
		wiring.observers.addAll(plan.observers);
		wiring.tables = plan.tables;
		wiring.actor = plan.actor;
		wiring.placementPolicy = plan.placementPolicy;
		wiring.shardMigrator = plan.shardMigrator;
		wiring.shardPoolFactory = plan.shardPoolFactory;
		wiring.moveSettings = plan.moveSettings;
		wiring.stopTheWorldCleanDelay = plan.stopTheWorldCleanDelay;
		wiring.moveExecutor = plan.moveExecutor;
		wiring.moveLease = plan.moveLease;
		wiring.moveHook = plan.moveHook;
		wiring.rowLevelSecurity = plan.rowLevelSecurity;
		wiring.requireRowLevelSecurity = plan.requireRowLevelSecurity;
		wiring.installCapture = plan.installCapture;
		wiring.registerShards = plan.registerShards;
		wiring.prepareShardsOnStart = plan.prepareShardsOnStart;
		return new DefaultShardTenancy(new Wiring(wiring));
	}

	@Override
	public void checkTenantSwitch(String tenantId) {
		ConnectionGuard.checkSwitch(tenantId);
	}

}
