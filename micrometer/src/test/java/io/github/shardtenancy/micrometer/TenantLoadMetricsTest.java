package io.github.shardtenancy.micrometer;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.List;
import java.util.UUID;

import javax.sql.DataSource;

import com.zaxxer.hikari.HikariConfig;
import io.github.shardtenancy.ShardTenancy;
import io.github.shardtenancy.TenantContext;
import io.github.shardtenancy.TenantTable;
import io.github.shardtenancy.liquibase.ShardTenancyMigrations;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@link TenantLoadMetrics} over a real tenancy on H2 with load tracking on: writes through the tenant-routing
 * {@code DataSource} show up per shard, and per tenant only when the tenant tag is chosen.
 */
@DisplayName("TenantLoadMetrics: traffic gauges per shard, per tenant on demand")
class TenantLoadMetricsTest {

	private ShardTenancy tenancy;

	private static HikariConfig pool(String name, String database) {
		HikariConfig config = new HikariConfig();
		config.setJdbcUrl("jdbc:h2:mem:" + name + "-" + database + ";DB_CLOSE_DELAY=-1;LOCK_TIMEOUT=10000");
		config.setMaximumPoolSize(4);
		return config;
	}

	private void start() throws SQLException {
		String name = "load-metrics-" + UUID.randomUUID();
		this.tenancy = ShardTenancy.builder()
			.directory(pool(name, "directory"))
			.shard("shard-1", pool(name, "shard-1"))
			.shard("shard-2", pool(name, "shard-2"))
			.shardMigrator((shardId, dataSource, dialect) -> ShardTenancyMigrations.migrateShard(dataSource, shardId,
					List.of()))
			.tenantTables(List.of(new TenantTable("memo", "tenant_id")))
			.loadTracking(true, Duration.ofMinutes(5), 1000)
			.build();
		ShardTenancyMigrations.migrateDirectory(this.tenancy.directoryDataSource());
		for (String shardId : this.tenancy.topology().shardIds()) {
			DataSource shard = this.tenancy.topology().dataSource(shardId);
			ShardTenancyMigrations.migrateShard(shard, shardId, List.of());
			try (Connection connection = shard.getConnection(); Statement statement = connection.createStatement()) {
				statement.execute("create table memo (id int primary key, tenant_id varchar(64) not null)");
			}
		}
		this.tenancy.start();
		this.tenancy.admin().create("acme", "shard-1");
		this.tenancy.admin().create("globex", "shard-1");
	}

	@AfterEach
	void stop() {
		if (this.tenancy != null) {
			this.tenancy.close();
		}
	}

	private void insert(String tenantId, int id) throws SQLException {
		try (TenantContext.Scope scope = TenantContext.bind(tenantId);
				Connection connection = this.tenancy.dataSource().getConnection();
				PreparedStatement insert = connection.prepareStatement("insert into memo values (?, ?)")) {
			insert.setInt(1, id);
			insert.setString(2, tenantId);
			insert.executeUpdate();
		}
	}

	@Test
	@DisplayName("per shard: every shard has a series; the writes of both tenants add up on shard-1")
	void perShard() throws SQLException {
		start();
		MeterRegistry registry = new SimpleMeterRegistry();
		TenantLoadMetrics metrics = new TenantLoadMetrics(this.tenancy, false);
		metrics.bindTo(registry);
		assertThat(registry.get("shardtenancy.load.transactions").tag("shard", "shard-2").gauge().value()).isZero();
		insert("acme", 1);
		insert("acme", 2);
		insert("globex", 3);
		metrics.refresh();
		assertThat(registry.get("shardtenancy.load.transactions").tag("shard", "shard-1").gauge().value())
			.isEqualTo(3);
		assertThat(registry.get("shardtenancy.load.rows.written").tag("shard", "shard-1").gauge().value())
			.isEqualTo(3);
		assertThat(registry.get("shardtenancy.load.time").tag("shard", "shard-1").gauge().value()).isPositive();
		assertThat(registry.find("shardtenancy.load.transactions").tagKeys("tenant").meters()).isEmpty();
	}

	@Test
	@DisplayName("with the tenant tag: one series per tenant seen, none without a tenant")
	void perTenant() throws SQLException {
		start();
		MeterRegistry registry = new SimpleMeterRegistry();
		TenantLoadMetrics metrics = new TenantLoadMetrics(this.tenancy, true);
		metrics.bindTo(registry);
		insert("acme", 1);
		insert("acme", 2);
		insert("globex", 3);
		metrics.refresh();
		assertThat(registry.get("shardtenancy.load.rows.written").tags("shard", "shard-1", "tenant", "acme").gauge()
			.value()).isEqualTo(2);
		assertThat(registry.get("shardtenancy.load.rows.written").tags("shard", "shard-1", "tenant", "globex")
			.gauge().value()).isEqualTo(1);
		assertThat(registry.find("shardtenancy.load.transactions").meters())
			.allSatisfy(m -> assertThat(m.getId().getTag("tenant")).isNotNull())
			.hasSize(2);
	}

}
