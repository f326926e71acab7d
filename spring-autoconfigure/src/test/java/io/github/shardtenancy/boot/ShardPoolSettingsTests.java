package io.github.shardtenancy.boot;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.UUID;

import javax.sql.DataSource;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import io.github.shardtenancy.ShardTenancy;
import io.github.shardtenancy.ShardTenancyConfigurationException;
import io.github.shardtenancy.ShardTopology;
import io.github.shardtenancy.TenantAdmin;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.context.properties.bind.BindException;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Every HikariCP setting reaches the pools the starter builds, from {@code shard-tenancy.pool.hikari.*} (every shard),
 * {@code shard-tenancy.shards.<id>.hikari.*} (one shard, winning) and {@code shard-tenancy.directory.hikari.*}, layered
 * with the shortcut settings as docs/configuration.md describes. Checked on the running H2 pools: the settings HikariCP
 * holds and, for the SQL run on each new connection and the driver properties, their effect on a connection.
 */
@DisplayName("HikariCP settings of the shard and directory pools")
class ShardPoolSettingsTests {

	private static ApplicationContextRunner runner(String directoryUrl) {
		return new ApplicationContextRunner()
			.withConfiguration(AutoConfigurations.of(ShardTenancyAutoConfiguration.class))
			.withPropertyValues("shard-tenancy.directory.url=" + directoryUrl,
					"shard-tenancy.shards.shard-1.url=" + ShardTenancySettingsTests.h2("shard-1"),
					"shard-tenancy.shards[shard.2].url=" + ShardTenancySettingsTests.h2("shard-2"), "shard-tenancy.sync.interval=1h");
	}

	private static HikariDataSource pool(ShardTopology topology, String shardId) {
		return (HikariDataSource) topology.dataSource(shardId);
	}

	private static String query(DataSource dataSource, String sql) throws SQLException {
		try (Connection connection = dataSource.getConnection(); Statement statement = connection.createStatement();
				ResultSet rows = statement.executeQuery(sql)) {
			assertThat(rows.next()).as(sql).isTrue();
			return rows.getString(1);
		}
	}

	@Test
	@DisplayName("pool.hikari.* reaches every shard pool, shards.<id>.hikari.* wins for its shard")
	void defaultsAndPerShard() {
		runner(ShardTenancySettingsTests.h2("directory"))
			.withPropertyValues("shard-tenancy.pool.hikari.maximum-pool-size=7",
					"shard-tenancy.pool.hikari.leak-detection-threshold=2500",
					"shard-tenancy.pool.hikari.connection-init-sql=SET @POOL_INIT = 'every-shard'",
					"shard-tenancy.pool.hikari.data-source-properties.DEFAULT_NULL_ORDERING=HIGH",
					"shard-tenancy.shards[shard.2].hikari.maximum-pool-size=3",
					"shard-tenancy.shards[shard.2].hikari.leak-detection-threshold=4000",
					"shard-tenancy.shards[shard.2].hikari.connection-init-sql=SET @POOL_INIT = 'shard-2'",
					"shard-tenancy.shards[shard.2].hikari.data-source-properties.DEFAULT_NULL_ORDERING=LOW")
			.run((context) -> {
				assertThat(context).hasNotFailed();
				ShardTopology topology = context.getBean(ShardTopology.class);
				HikariDataSource shard1 = pool(topology, "shard-1");
				HikariDataSource shard2 = pool(topology, "shard.2");
				assertThat(shard1.getMaximumPoolSize()).isEqualTo(7);
				assertThat(shard2.getMaximumPoolSize()).isEqualTo(3);
				assertThat(shard1.getLeakDetectionThreshold()).isEqualTo(2500);
				assertThat(shard2.getLeakDetectionThreshold()).isEqualTo(4000);
				assertThat(shard1.getPoolName()).isEqualTo("shard-shard-1");
				assertThat(shard2.getPoolName()).isEqualTo("shard-shard.2");
				// The init SQL ran on the pool's connections, and the driver got the data source properties.
				assertThat(query(shard1, "SELECT @POOL_INIT")).isEqualTo("every-shard");
				assertThat(query(shard2, "SELECT @POOL_INIT")).isEqualTo("shard-2");
				String nullOrdering = "SELECT SETTING_VALUE FROM INFORMATION_SCHEMA.SETTINGS"
						+ " WHERE SETTING_NAME = 'DEFAULT_NULL_ORDERING'";
				assertThat(query(shard1, nullOrdering)).isEqualTo("HIGH");
				assertThat(query(shard2, nullOrdering)).isEqualTo("LOW");
			});
	}

	@Test
	@DisplayName("a shard's shortcut settings beat pool.hikari.*, its own hikari.* beats its shortcuts")
	void precedenceOfTheShortcuts() {
		runner(ShardTenancySettingsTests.h2("directory"))
			.withPropertyValues("shard-tenancy.pool.connection-timeout=2s",
					"shard-tenancy.pool.hikari.connection-timeout=3000", "shard-tenancy.pool.hikari.maximum-pool-size=6",
					"shard-tenancy.shards.shard-1.maximum-pool-size=4",
					"shard-tenancy.shards.shard-1.connection-timeout=1500ms",
					"shard-tenancy.shards[shard.2].maximum-pool-size=4",
					"shard-tenancy.shards[shard.2].hikari.maximum-pool-size=5")
			.run((context) -> {
				ShardTopology topology = context.getBean(ShardTopology.class);
				assertThat(pool(topology, "shard-1").getMaximumPoolSize()).isEqualTo(4);
				assertThat(pool(topology, "shard-1").getConnectionTimeout()).isEqualTo(1500);
				assertThat(pool(topology, "shard.2").getMaximumPoolSize()).isEqualTo(5);
				// pool.hikari.connection-timeout beats pool.connection-timeout
				assertThat(pool(topology, "shard.2").getConnectionTimeout()).isEqualTo(3000);
			});
	}

	@Test
	@DisplayName("without any pool setting, a shard pool has 10 connections and a 5 s connection timeout")
	void defaults() {
		runner(ShardTenancySettingsTests.h2("directory")).run((context) -> {
			HikariDataSource shard1 = pool(context.getBean(ShardTopology.class), "shard-1");
			assertThat(shard1.getMaximumPoolSize()).isEqualTo(10);
			assertThat(shard1.getConnectionTimeout()).isEqualTo(5000);
			HikariDataSource directory = (HikariDataSource) context.getBean(ShardTenancy.class).directoryDataSource();
			assertThat(directory.getMaximumPoolSize()).isEqualTo(4);
			assertThat(directory.getPoolName()).isEqualTo("shard-tenancy-directory");
		});
	}

	@Test
	@DisplayName("directory.hikari.* reaches the directory's pool and wins over directory.maximum-pool-size")
	void directory() {
		runner(ShardTenancySettingsTests.h2("directory"))
			.withPropertyValues("shard-tenancy.directory.maximum-pool-size=3",
					"shard-tenancy.directory.hikari.maximum-pool-size=2",
					"shard-tenancy.directory.hikari.connection-init-sql=SET @POOL_INIT = 'directory'",
					"shard-tenancy.pool.hikari.maximum-pool-size=9")
			.run((context) -> {
				HikariDataSource directory = (HikariDataSource) context.getBean(ShardTenancy.class)
					.directoryDataSource();
				assertThat(directory.getMaximumPoolSize()).isEqualTo(2);
				assertThat(query(directory, "SELECT @POOL_INIT")).isEqualTo("directory");
			});
	}

	@Test
	@DisplayName("pool.hikari.* and the shard's own settings reach the pool of a shard another instance registered")
	void shardsMetAtRuntime() {
		String directory = ShardTenancySettingsTests.h2("directory");
		runner(directory).run((registering) -> {
			HikariConfig config = new HikariConfig();
			config.setJdbcUrl(ShardTenancySettingsTests.h2("shard-3"));
			registering.getBean(TenantAdmin.class).registerShard("shard-3", null, config);
			runner(directory)
				.withPropertyValues("shard-tenancy.pool.hikari.maximum-pool-size=6",
						"shard-tenancy.pool.hikari.connection-init-sql=SET @POOL_INIT = 'met'")
				.run((other) -> {
					ShardTopology topology = other.getBean(ShardTopology.class);
					other.getBean(TenantAdmin.class).syncShards();
					assertThat(topology.contains("shard-3")).isTrue();
					assertThat(pool(topology, "shard-3").getMaximumPoolSize()).isEqualTo(6);
					assertThat(pool(topology, "shard-3").getPoolName()).isEqualTo("shard-shard-3");
					assertThat(query(pool(topology, "shard-3"), "SELECT @POOL_INIT")).isEqualTo("met");
				});
		});
	}

	@Test
	@DisplayName("pool.hikari.pool-name fails the start, naming the property")
	void poolNameForEveryShardIsRefused() {
		runner(ShardTenancySettingsTests.h2("directory")).withPropertyValues("shard-tenancy.pool.hikari.pool-name=same").run((context) -> {
			assertThat(context).hasFailed();
			assertThat(context.getStartupFailure()).rootCause()
				.isInstanceOf(ShardTenancyConfigurationException.class)
				.hasMessageContaining("shard-tenancy.pool.hikari.pool-name");
		});
	}

	@Test
	@DisplayName("a value HikariCP refuses fails the start with Boot's bind error naming the property")
	void badHikariValue() {
		runner(ShardTenancySettingsTests.h2("directory")).withPropertyValues("shard-tenancy.shards.shard-1.hikari.maximum-pool-size=0")
			.run((context) -> {
				assertThat(context).hasFailed();
				BindException bind = findCause(context.getStartupFailure(), BindException.class);
				assertThat(bind.getProperty().getName().toString())
					.isEqualTo("shard-tenancy.shards.shard-1.hikari.maximum-pool-size");
				assertThat(bind.getProperty().getValue()).isEqualTo("0");
			});
	}

	private static <T extends Throwable> T findCause(Throwable failure, Class<T> type) {
		for (Throwable cause = failure; cause != null; cause = cause.getCause()) {
			if (type.isInstance(cause)) {
				return type.cast(cause);
			}
		}
		throw new AssertionError("No " + type.getSimpleName() + " in " + failure);
	}

}
