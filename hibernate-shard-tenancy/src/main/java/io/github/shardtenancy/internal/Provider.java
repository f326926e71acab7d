package io.github.shardtenancy.internal;

import java.sql.Connection;
import java.sql.SQLException;

import io.github.shardtenancy.ShardTenancy;
import io.github.shardtenancy.UnreachableShardPolicy;
import io.github.shardtenancy.internal.jdbc.ConnectionGuard;
import io.github.shardtenancy.internal.topology.Topology;
import io.github.shardtenancy.spi.ShardTenancyProvider;
import io.github.shardtenancy.spi.TenancyPlan;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The library's {@link ShardTenancyProvider}, registered in {@code META-INF/services}: builds the {@link Wiring} of
 * a builder's plan. Thread-safe (stateless).
 */
public final class Provider implements ShardTenancyProvider {

	private static final Logger log = LoggerFactory.getLogger(Provider.class);

	@Override
	public ShardTenancy create(TenancyPlan plan) {
		Topology topology = new Topology();
		topology.setPoolListeners(plan.shardPoolListeners);
		try {
			for (TenancyPlan.Shard shard : plan.shards) {
				if (plan.unreachableShardPolicy == UnreachableShardPolicy.START_WITHOUT && !reachable(shard)) {
					topology.addPending(shard.shardId(), shard.dataSource(), shard.owned());
				}
				else {
					topology.addShard(shard.shardId(), shard.dataSource(), shard.owned());
				}
			}
		}
		catch (RuntimeException ex) {
			topology.close(); // closes the owned pools added so far; the caller closes the others it owns
			throw ex;
		}
		if (topology.shardIds().isEmpty()) {
			topology.close();
			throw new io.github.shardtenancy.ShardTenancyConfigurationException("shard-tenancy.shards", "No shard "
					+ "could be reached at start-up (" + String.join(", ", plan.shards.stream()
						.map(TenancyPlan.Shard::shardId).toList()) + "): starting without a shard needs at least one "
					+ "that answers; check the shards' URLs, users and passwords, and that their databases are up");
		}
		return new DefaultShardTenancy(new Wiring(plan, topology));
	}

	/**
	 * @return whether the shard's pool reached its database when it was created, or, for a pool of the caller's, gives
	 * a connection now; an unreachable shard is logged once, at WARN
	 */
	private static boolean reachable(TenancyPlan.Shard shard) {
		String unreachable = shard.unreachable();
		if (unreachable == null && shard.owned()) {
			return true;
		}
		if (unreachable == null) {
			try (Connection c = shard.dataSource().getConnection()) {
				return true;
			}
			catch (SQLException ex) {
				unreachable = "Shard '" + shard.shardId() + "' cannot be reached at start-up: " + ex.getMessage();
			}
		}
		log.warn("{}; starting without it (UnreachableShardPolicy.START_WITHOUT, "
				+ "shard-tenancy.unreachable-shard-policy=start-without): its tenants' work fails with "
				+ "ShardUnavailableException until it answers, when it is migrated, prepared and served", unreachable);
		return false;
	}

	@Override
	public void checkTenantSwitch(String tenantId) {
		ConnectionGuard.checkSwitch(tenantId);
	}

}
