package io.github.shardtenancy.boot;

import java.sql.Connection;
import java.sql.SQLException;
import java.util.List;

import io.github.shardtenancy.ShardTenancyConfigurationException;
import io.github.shardtenancy.TenantTable;
import io.github.shardtenancy.internal.topology.Topology;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.beans.factory.SmartInitializingSingleton;

/**
 * Installs the fence's per-row write check (and, on PostgreSQL, its TRUNCATE refusal and, unless switched off, its
 * row-level security) on every tenant table of every shard, once all singletons (the {@code EntityManagerFactory}
 * among them) exist, and so before the application serves any work. The installation is idempotent. With row-level
 * security on, it then checks that each shard's role is subject to it (not a superuser, no {@code BYPASSRLS}), and
 * warns or fails ({@code shard-tenancy.fence.require-row-level-security}) when it is not.
 */
class FenceWriteCheckInstaller implements SmartInitializingSingleton {

	private static final Logger log = LoggerFactory.getLogger(FenceWriteCheckInstaller.class);

	private final Topology topology;

	private final TenantTableResolver tables;

	private final boolean rowLevelSecurity;

	private final boolean requireRowLevelSecurity;

	FenceWriteCheckInstaller(Topology topology, TenantTableResolver tables, boolean rowLevelSecurity,
			boolean requireRowLevelSecurity) {
		this.topology = topology;
		this.tables = tables;
		this.rowLevelSecurity = rowLevelSecurity;
		this.requireRowLevelSecurity = requireRowLevelSecurity;
	}

	/**
	 * @throws ShardTenancyConfigurationException if a check cannot be installed (a missing table or column, an
	 * unreachable shard), naming the table and the shard; or, with
	 * {@code shard-tenancy.fence.require-row-level-security}, if a shard's role skips row-level security
	 */
	@Override
	public void afterSingletonsInstantiated() {
		List<TenantTable> tenantTables = this.tables.resolve();
		for (String shardId : this.topology.shardIds()) {
			Topology.Shard shard = this.topology.shard(shardId);
			for (TenantTable table : tenantTables) {
				try (Connection c = shard.dataSource().getConnection()) {
					c.setAutoCommit(true);
					shard.dialect().installWriteCheck(c, table.table(), table.tenantColumn(), this.rowLevelSecurity);
				}
				catch (SQLException ex) {
					throw new ShardTenancyConfigurationException("shard-tenancy.tenant-tables",
							"Cannot install the fence write check on table " + table.table() + " (tenant column "
									+ table.tenantColumn() + ") of shard '" + shardId + "': " + ex.getMessage()
									+ "; check that the shard changelogs create it"
									+ (this.rowLevelSecurity ? " and that the shard's role owns it (row-level "
											+ "security is switched on by its owner; or set "
											+ "shard-tenancy.fence.row-level-security=false)" : ""));
				}
			}
			log.debug("Fence write check installed on {} table(s) of shard '{}'", tenantTables.size(), shardId);
			if (this.rowLevelSecurity && !tenantTables.isEmpty()) {
				checkRowLevelSecurity(shard);
			}
		}
	}

	private void checkRowLevelSecurity(Topology.Shard shard) {
		String bypass;
		try (Connection c = shard.dataSource().getConnection()) {
			bypass = shard.dialect().rowLevelSecurityBypass(c);
		}
		catch (SQLException ex) {
			throw new ShardTenancyConfigurationException("shard-tenancy.fence.row-level-security",
					"Cannot read the role of shard '" + shard.id() + "': " + ex.getMessage(), shard.id());
		}
		if (bypass == null) {
			return;
		}
		String message = "Row-level security of the tenant tables does not hold on shard '" + shard.id() + "': "
				+ bypass + ", and PostgreSQL skips row-level security for superusers and BYPASSRLS roles, so a "
				+ "tenant's native SQL can read other tenants' rows; connect the shard (shard-tenancy.shards."
				+ shard.id() + ".username) as a role without SUPERUSER and BYPASSRLS";
		if (this.requireRowLevelSecurity) {
			throw new ShardTenancyConfigurationException("shard-tenancy.fence.require-row-level-security", message,
					shard.id());
		}
		log.warn("{} (or set shard-tenancy.fence.require-row-level-security=true to refuse to start)", message);
	}

}
