package io.github.shardtenancy.boot;

import java.sql.Connection;
import java.sql.SQLException;
import java.sql.SQLFeatureNotSupportedException;

import io.github.shardtenancy.ShardTenancyConfigurationException;
import io.github.shardtenancy.TenantMover;
import io.github.shardtenancy.TenantTable;
import io.github.shardtenancy.internal.directory.Directory;
import io.github.shardtenancy.internal.move.Mover;
import io.github.shardtenancy.internal.routing.Router;
import io.github.shardtenancy.internal.topology.Topology;
import io.github.shardtenancy.MoveSettings;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.beans.factory.SmartInitializingSingleton;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * The mover: one {@link TenantMover} over the tenant tables (configured under {@code shard-tenancy.tenant-tables} or
 * discovered from the Hibernate metamodel), running its moves on a bounded executor this configuration owns and shuts
 * down with the context; the {@link MoveSettings} the lifecycle and the admin move with (from
 * {@code shard-tenancy.move.*}); and the installation of the change capture on every tenant table of every shard at
 * start-up. Every bean backs off to the application's own.
 */
@Configuration(proxyBeanMethods = false)
class ShardTenancyMoveConfiguration {

	/**
	 * The settings of online moves (the lifecycle's); the admin's stop-the-world moves use them with capture off and
	 * {@code shard-tenancy.move.clean-delay}.
	 */
	@Bean
	@ConditionalOnMissingBean
	MoveSettings shardTenancyMoveSettings(ShardTenancyProperties properties) {
		MoveProperties move = properties.getMove();
		try {
			return new MoveSettings(move.getBatchSize(), move.getThrottle(), move.getCatchUpLagThreshold(),
					move.getMaxCatchUpRounds(), move.getOnlineCleanDelay(), true);
		}
		catch (IllegalArgumentException | NullPointerException ex) {
			throw new ShardTenancyConfigurationException("shard-tenancy.move",
					"Invalid online move settings under shard-tenancy.move (batch-size >= 1, catch-up-lag-threshold "
							+ ">= 0, max-catch-up-rounds >= 1, throttle and online-clean-delay not negative): "
							+ ex.getMessage());
		}
	}

	@Bean(destroyMethod = "close")
	@ConditionalOnMissingBean
	MoveExecutor shardTenancyMoveExecutor() {
		return new MoveExecutor();
	}

	@Bean
	@ConditionalOnMissingBean
	TenantMover tenantMover(Directory directory, Router router, Topology topology,
			TenantTableResolver tables, ShardTenancyProperties properties, MoveExecutor executor) {
		if (properties.getMove().getLease() == null || properties.getMove().getLease().isNegative()) {
			throw new ShardTenancyConfigurationException("shard-tenancy.move.lease",
					"shard-tenancy.move.lease must not be negative: " + properties.getMove().getLease());
		}
		return new Mover(directory, router, topology, tables.resolve(), properties.getActor(), executor.executor())
			.withLease(properties.getMove().getLease());
	}

	@Bean
	@ConditionalOnMissingBean
	@ConditionalOnProperty(prefix = "shard-tenancy.move", name = "install-capture", matchIfMissing = true)
	ChangeCaptureInstaller shardTenancyChangeCaptureInstaller(Topology topology, TenantTableResolver tables) {
		return new ChangeCaptureInstaller(topology, tables);
	}

	/**
	 * Installs the mover's change capture on every tenant table of every shard once all singletons exist,
	 * before the application serves work (on H2, creating a trigger while the table is written can fail the writes).
	 * Idempotent. A shard whose dialect has no change capture is skipped (its tenants cannot be moved online).
	 */
	static final class ChangeCaptureInstaller implements SmartInitializingSingleton {

		private static final Logger log = LoggerFactory.getLogger(ChangeCaptureInstaller.class);

		private final Topology topology;

		private final TenantTableResolver tables;

		ChangeCaptureInstaller(Topology topology, TenantTableResolver tables) {
			this.topology = topology;
			this.tables = tables;
		}

		/**
		 * @throws ShardTenancyConfigurationException if the capture cannot be installed on a table (missing, or
		 * without a primary key), naming the table and the shard
		 */
		@Override
		public void afterSingletonsInstantiated() {
			for (String shardId : this.topology.shardIds()) {
				install(this.topology.shard(shardId));
			}
		}

		/**
		 * Installs the change capture on every tenant table of one shard (also used for shards registered at runtime).
		 * @param shard the shard
		 * @throws ShardTenancyConfigurationException if the capture cannot be installed on a table (missing, or
		 * without a primary key), naming the table and the shard
		 */
		void install(Topology.Shard shard) {
			for (TenantTable table : this.tables.resolve()) {
				try (Connection c = shard.dataSource().getConnection()) {
					c.setAutoCommit(true);
					shard.dialect().installChangeCapture(c, table.table(), table.tenantColumn());
				}
				catch (SQLFeatureNotSupportedException ex) {
					log.info("Shard '{}' has no change capture for the online mover: {}", shard.id(), ex.getMessage());
					return;
				}
				catch (SQLException ex) {
					throw new ShardTenancyConfigurationException("shard-tenancy.tenant-tables",
							"Cannot install the online mover's change capture on table " + table.table()
									+ " (tenant column " + table.tenantColumn() + ") of shard '" + shard.id() + "': "
									+ ex.getMessage() + "; a tenant table needs a primary key (or set "
									+ "shard-tenancy.move.install-capture=false)");
				}
			}
		}

	}

}
