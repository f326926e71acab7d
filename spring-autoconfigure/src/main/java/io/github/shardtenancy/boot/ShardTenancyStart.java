package io.github.shardtenancy.boot;

import java.util.Map;

import io.github.shardtenancy.ShardTenancy;
import io.github.shardtenancy.ShardTenancyConfigurationException;
import org.springframework.beans.factory.SmartInitializingSingleton;

/**
 * Starts the {@link ShardTenancy} when created (after the migrations: the auto-configuration makes it depend on
 * them), and prepares its shards once all singletons (the {@code EntityManagerFactory} among them, from whose
 * metamodel the tenant tables may be discovered) exist, before the application serves work: the fence's write check
 * (and, on PostgreSQL, its TRUNCATE refusal and, when switched on, row-level security, checking that each shard's
 * role is subject to it) and, unless {@code shard-tenancy.move.install-capture=false}, the online mover's change
 * capture (on H2, creating a trigger while the table is written can fail the writes). Both are idempotent.
 */
final class ShardTenancyStart implements SmartInitializingSingleton {

	/** The core builder's setting names, as the properties that set them. */
	private static final Map<String, String> PROPERTIES = Map.of("tenantTables", "shard-tenancy.tenant-tables",
			"rowLevelSecurity", "shard-tenancy.fence.row-level-security", "requireRowLevelSecurity",
			"shard-tenancy.fence.require-row-level-security");

	private final ShardTenancy tenancy;

	/**
	 * Starts the tenancy.
	 * @param tenancy the tenancy
	 * @throws io.github.shardtenancy.DirectoryUnavailableException if the directory cannot be read
	 */
	ShardTenancyStart(ShardTenancy tenancy) {
		this.tenancy = tenancy;
		tenancy.start();
	}

	/**
	 * @throws ShardTenancyConfigurationException if a check or the capture cannot be installed on a tenant table,
	 * naming the table, the shard and the property ({@code shard-tenancy.tenant-tables}); or, with
	 * {@code shard-tenancy.fence.require-row-level-security}, if a shard's role skips row-level security
	 */
	@Override
	public void afterSingletonsInstantiated() {
		try {
			this.tenancy.prepareShards();
		}
		catch (ShardTenancyConfigurationException ex) {
			throw asProperty(ex);
		}
	}

	/**
	 * @param ex a failure naming a setting of the core's builder
	 * @return the same failure naming the property instead, or {@code ex} if no property sets that setting
	 */
	static ShardTenancyConfigurationException asProperty(ShardTenancyConfigurationException ex) {
		String property = PROPERTIES.get(ex.setting());
		if (property == null) {
			return ex;
		}
		return new ShardTenancyConfigurationException(property, ex.getMessage() + " (" + property + ")",
				ex.shardId());
	}

}
