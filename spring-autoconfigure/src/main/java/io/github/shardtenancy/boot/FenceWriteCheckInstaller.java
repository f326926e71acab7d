package io.github.shardtenancy.boot;

import java.sql.Connection;
import java.sql.SQLException;
import java.util.List;

import io.github.shardtenancy.ShardTenancyConfigurationException;
import io.github.shardtenancy.admin.TenantTable;
import io.github.shardtenancy.topology.ShardTopology;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.beans.factory.SmartInitializingSingleton;

/**
 * Installs the fence's per-row write check on every tenant table of every shard, once all singletons (the
 * {@code EntityManagerFactory} among them) exist, and so before the application serves any work. The installation
 * is idempotent.
 */
class FenceWriteCheckInstaller implements SmartInitializingSingleton {

	private static final Logger log = LoggerFactory.getLogger(FenceWriteCheckInstaller.class);

	private final ShardTopology topology;

	private final TenantTableResolver tables;

	FenceWriteCheckInstaller(ShardTopology topology, TenantTableResolver tables) {
		this.topology = topology;
		this.tables = tables;
	}

	/**
	 * @throws ShardTenancyConfigurationException if a check cannot be installed (a missing table or column, an
	 * unreachable shard), naming the table and the shard
	 */
	@Override
	public void afterSingletonsInstantiated() {
		List<TenantTable> tenantTables = this.tables.resolve();
		for (String shardId : this.topology.shardIds()) {
			ShardTopology.Shard shard = this.topology.shard(shardId);
			for (TenantTable table : tenantTables) {
				try (Connection c = shard.dataSource().getConnection()) {
					c.setAutoCommit(true);
					shard.dialect().installWriteCheck(c, table.table(), table.tenantColumn());
				}
				catch (SQLException ex) {
					throw new ShardTenancyConfigurationException("shard-tenancy.tenant-tables",
							"Cannot install the fence write check on table " + table.table() + " (tenant column "
									+ table.tenantColumn() + ") of shard '" + shardId + "': " + ex.getMessage()
									+ "; check that the shard changelogs create it");
				}
			}
			log.debug("Fence write check installed on {} table(s) of shard '{}'", tenantTables.size(), shardId);
		}
	}

}
