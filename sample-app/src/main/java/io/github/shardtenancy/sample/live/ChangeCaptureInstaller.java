package io.github.shardtenancy.sample.live;

import java.sql.Connection;
import java.sql.SQLException;
import java.sql.SQLFeatureNotSupportedException;
import java.util.List;

import io.github.shardtenancy.ShardTenancyConfigurationException;
import io.github.shardtenancy.admin.TenantTable;
import io.github.shardtenancy.topology.ShardTopology;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.beans.factory.SmartInitializingSingleton;

/**
 * Installs the online mover's change capture on every tenant table of every shard at start-up, before any request is
 * served. A move's mark step would install it too, but on H2 creating a trigger while other transactions write to the
 * table can fail those writes ({@link io.github.shardtenancy.move.OnlineMover}'s javadoc), and the live page moves
 * tenants while a burst of writers runs. Idempotent: an installed capture is left as it is.
 */
class ChangeCaptureInstaller implements SmartInitializingSingleton {

	private static final Logger log = LoggerFactory.getLogger(ChangeCaptureInstaller.class);

	private final ShardTopology topology;

	private final List<TenantTable> tables;

	ChangeCaptureInstaller(ShardTopology topology, List<TenantTable> tables) {
		this.topology = topology;
		this.tables = List.copyOf(tables);
	}

	/**
	 * @throws ShardTenancyConfigurationException if a capture cannot be installed (a missing table or an unreachable
	 * shard), naming the table and the shard; a shard whose dialect has no change capture is only logged
	 */
	@Override
	public void afterSingletonsInstantiated() {
		for (String shardId : this.topology.shardIds()) {
			ShardTopology.Shard shard = this.topology.shard(shardId);
			for (TenantTable table : this.tables) {
				try (Connection c = shard.dataSource().getConnection()) {
					c.setAutoCommit(true);
					shard.dialect().installChangeCapture(c, table.table(), table.tenantColumn());
				}
				catch (SQLFeatureNotSupportedException ex) {
					log.warn("Shard '{}' has no change capture ({}): the live page cannot move its tenants", shardId,
							ex.getMessage());
					break;
				}
				catch (SQLException ex) {
					throw new ShardTenancyConfigurationException("shard-tenancy.tenant-tables",
							"Cannot install change capture on table " + table.table() + " (tenant column "
									+ table.tenantColumn() + ") of shard '" + shardId + "': " + ex.getMessage());
				}
			}
		}
		log.debug("Change capture installed on {} table(s) of shards {}", this.tables.size(),
				this.topology.shardIds());
	}

}
