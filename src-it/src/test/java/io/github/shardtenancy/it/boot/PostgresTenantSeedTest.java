package io.github.shardtenancy.it.boot;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;

import javax.sql.DataSource;

import io.github.shardtenancy.ShardTenancy;
import io.github.shardtenancy.TenantAdmin;
import io.github.shardtenancy.TenantSeedException;
import io.github.shardtenancy.testing.pg.PostgresCluster;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.springframework.context.ConfigurableApplicationContext;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Seeding on PostgreSQL through {@code TenantAdmin.create} in the Boot test application: the seed script's row lands
 * on the new tenant's shard only, a move copies it without seeding again, and a seed script the fence refuses (a row
 * of another tenant) rolls the whole seed back.
 */
@DisplayName("PostgreSQL with Spring Boot: a new tenant's seed script runs once on its own shard, fenced, all or nothing")
class PostgresTenantSeedTest {

	private ConfigurableApplicationContext context;

	private TenantAdmin start(String actor, String seedLocations) {
		this.context = PostgresOrdersApp.start(PostgresCluster.shared(), actor,
				"shard-tenancy.seed.locations=" + seedLocations);
		return this.context.getBean(TenantAdmin.class);
	}

	private DataSource shard(String shardId) {
		return this.context.getBean(ShardTenancy.class).topology().dataSource(shardId);
	}

	@AfterEach
	void close() {
		if (this.context != null) {
			this.context.close();
		}
	}

	private static List<String> customers(DataSource shard, String tenant) throws SQLException {
		List<String> customers = new ArrayList<>();
		try (Connection c = shard.getConnection();
				PreparedStatement ps = c.prepareStatement("SELECT customer FROM purchase_order WHERE tenant_id = ?")) {
			ps.setString(1, tenant);
			try (ResultSet rs = ps.executeQuery()) {
				while (rs.next()) {
					customers.add(rs.getString(1));
				}
			}
		}
		return customers;
	}

	@Test
	@DisplayName("the seed runs once on the tenant's shard; a move copies its row and never seeds again")
	void seedsOnceOnItsShard() throws SQLException {
		TenantAdmin admin = start("pg-seed", "classpath:db/it-seed/pg/*.sql");
		String tenant = PostgresCluster.tenant("seed");
		admin.create(tenant, "shard-2");
		assertThat(customers(shard("shard-2"), tenant)).containsExactly("opening on shard-2");
		assertThat(customers(shard("shard-1"), tenant)).isEmpty();
		assertThat(customers(shard("shard-3"), tenant)).isEmpty();

		admin.move(tenant, "shard-3");
		assertThat(customers(shard("shard-3"), tenant)).containsExactly("opening on shard-2");
		assertThat(customers(shard("shard-2"), tenant)).as("cleaned after the move").isEmpty();
		assertThat(admin.seed(tenant)).isFalse();
		assertThat(customers(shard("shard-3"), tenant)).hasSize(1);
	}

	@Test
	@DisplayName("a seed script writing another tenant's row is refused by the fence and the whole seed is rolled back")
	void aRefusedSeedIsRolledBack() throws SQLException {
		TenantAdmin admin = start("pg-seed-broken", "classpath:db/it-seed/pg-broken/*.sql");
		String tenant = PostgresCluster.tenant("seed-broken");
		assertThatThrownBy(() -> admin.create(tenant, "shard-1")).isInstanceOfSatisfying(TenantSeedException.class,
				(ex) -> {
					assertThat(ex.rolledBack()).isTrue();
					assertThat(ex.shardId()).isEqualTo("shard-1");
				})
			.hasMessageContaining("02-other-tenant.sql");
		assertThat(customers(shard("shard-1"), tenant)).as("the first script's row went with the second").isEmpty();
		assertThat(customers(shard("shard-1"), "someone-else")).isEmpty();
		assertThat(admin.find(tenant)).isPresent();
	}

}
