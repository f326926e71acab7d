package io.github.shardtenancy.internal.lifecycle;

import java.sql.Connection;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicReference;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import io.github.shardtenancy.ShardStateException;
import io.github.shardtenancy.DirectoryEntry;
import io.github.shardtenancy.internal.hibernate.ShardMultiTenantConnectionProvider;
import io.github.shardtenancy.PlacementRequest;
import io.github.shardtenancy.ShardRecord;
import io.github.shardtenancy.internal.topology.ShardRegistry;
import io.github.shardtenancy.ShardState;
import io.github.shardtenancy.RouterSettings;
import io.github.shardtenancy.internal.routing.Router;
import io.github.shardtenancy.spi.ShardPoolFactory;
import io.github.shardtenancy.testing.ShardTenancyFixture;
import io.github.shardtenancy.internal.topology.Topology;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

@DisplayName("Shards added and retired at runtime")
class ShardsAtRuntimeTest {

	@Test
	void aShardAddedAtRuntimeIsMigratedBeforeTheFirstTenantIsPlacedOnItAndThatTenantsFirstTransactionSucceeds() {
		try (LifecycleFixture f = LifecycleFixture.create("shards-add", 2)) {
			for (int i = 0; i < 4; i++) {
				f.lifecycle.create("existing-" + i);
			}
			AtomicReference<String> registryDuringMigration = new AtomicReference<>();
			AtomicReference<Boolean> tablesAfterMigration = new AtomicReference<>();
			ShardRegistry registry = new ShardRegistry(f.core.directory(), f.core.topology(), (shardId, dataSource, dialect) -> {
				registryDuringMigration.set(f.registry.find(shardId).map(ShardRecord::state).map(Enum::name)
					.orElse("absent"));
				LifecycleFixture.MIGRATOR.migrate(shardId, dataSource, dialect);
				tablesAfterMigration.set(ShardTenancyFixture.queryLong(dataSource,
						"SELECT COUNT(*) FROM information_schema.tables WHERE LOWER(table_name) IN ('note', 'shard_fence')")
						== 2);
			}, ShardPoolFactory.urlAndUser(), "test@shards");

			ShardRecord record = registry.register("shard-3", "eu", f.newShardConfig("shard-3"));

			assertThat(registryDuringMigration.get()).as("registry row while migrating").isEqualTo("absent");
			assertThat(tablesAfterMigration.get()).isTrue();
			assertThat(record.state()).isEqualTo(ShardState.ACTIVE);
			assertThat(f.core.topology().contains("shard-3")).isTrue();
			// least loaded: the new, empty shard gets the next tenant
			DirectoryEntry first = f.lifecycle.create("first-on-new-shard");
			assertThat(first.shardId()).isEqualTo("shard-3");
			f.insertNote("first-on-new-shard", "first transaction");
			assertThat(f.rows("shard-3", "first-on-new-shard")).isEqualTo(1);
		}
	}

	@Test
	void aShardWhoseMigrationFailsIsNeverEligible() {
		try (LifecycleFixture f = LifecycleFixture.create("shards-broken", 1)) {
			ShardRegistry registry = new ShardRegistry(f.core.directory(), f.core.topology(), (shardId, dataSource, dialect) -> {
				throw new IllegalStateException("Liquibase failed on purpose");
			}, ShardPoolFactory.urlAndUser(), "test@shards");
			HikariConfig config = f.newShardConfig("shard-2");
			assertThatThrownBy(() -> registry.register("shard-2", null, config))
				.hasMessageContaining("on purpose");
			assertThat(f.registry.find("shard-2")).isEmpty();
			assertThat(f.core.topology().contains("shard-2")).isFalse();
			assertThatThrownBy(() -> f.lifecycle.create("t", PlacementRequest.onShard("shard-2")))
				.isInstanceOf(io.github.shardtenancy.PlacementException.class);
			assertThat(f.lifecycle.create("t").shardId()).isEqualTo("shard-1");
		}
	}

	@Test
	void retiringAShardThatOwnsTenantsIsRefusedAndAnEmptyOneIsRetiredAndItsPoolClosed() {
		try (LifecycleFixture f = LifecycleFixture.create("shards-retire", 2)) {
			f.lifecycle.create("acme", PlacementRequest.onShard("shard-2"));
			HikariDataSource pool = f.core.pool("shard-2");
			assertThatThrownBy(() -> f.registry.retire("shard-2"))
				.isInstanceOf(ShardStateException.class)
				.hasMessageContaining("shard-2")
				.hasMessageContaining("1 tenant(s)");
			assertThat(f.registry.find("shard-2").orElseThrow().state()).isEqualTo(ShardState.ACTIVE);
			f.insertNote("acme", "still served");

			f.lifecycle.move("acme", "shard-1");
			ShardRecord retired = f.registry.retire("shard-2");

			assertThat(retired.state()).isEqualTo(ShardState.RETIRED);
			assertThat(f.core.topology().contains("shard-2")).isFalse();
			assertThat(pool.isClosed()).isTrue();
			assertThatThrownBy(() -> f.lifecycle.create("late", PlacementRequest.onShard("shard-2")))
				.isInstanceOf(io.github.shardtenancy.PlacementException.class);
			assertThatThrownBy(() -> f.lifecycle.move("acme", "shard-2")).isInstanceOf(ShardStateException.class);
			assertThatThrownBy(() -> f.registry.register("shard-2", null, null, null))
				.isInstanceOf(ShardStateException.class);
			assertThat(new DirectoryHistory(f.core.directory()).events(0))
				.anySatisfy(e -> {
					assertThat(e.kind()).isEqualTo("SHARD_RETIRED");
					assertThat(e.subject()).isEqualTo("shard-2");
					assertThat(e.changedBy()).isEqualTo("test@lifecycle");
					assertThat(e.version()).isEqualTo(retired.version());
				});
		}
	}

	@Test
	void retiringAShardIsRefusedWhileADeletedTenantOnItIsNotPurgedAndAllowedOncePurged() {
		try (LifecycleFixture f = LifecycleFixture.create("shards-retire-unpurged", 2)) {
			f.lifecycle.create("gone", PlacementRequest.onShard("shard-2"));
			f.insertNote("gone", "left behind");
			f.lifecycle.delete("gone");

			assertThatThrownBy(() -> f.registry.retire("shard-2"))
				.isInstanceOf(ShardStateException.class)
				.hasMessageContaining("shard-2")
				.hasMessageContaining("[gone]")
				.hasMessageContaining("purge them first");
			assertThat(f.registry.find("shard-2").orElseThrow().state()).isEqualTo(ShardState.ACTIVE);
			assertThat(f.rows("shard-2", "gone")).isEqualTo(1);

			assertThat(f.lifecycle.purge("gone")).isEqualTo(1);
			assertThat(f.registry.retire("shard-2").state()).isEqualTo(ShardState.RETIRED);
			assertThat(f.core.directory().find("gone").orElseThrow().state())
				.isEqualTo(io.github.shardtenancy.TenantState.DELETED);
		}
	}

	@Test
	void anInstanceThatMissedTheNotificationCompletesItsNextTransactionOnTheNewOwnerAfterTheOldShardIsRetired()
			throws Exception {
		try (LifecycleFixture f = LifecycleFixture.create("shards-stale", 2)) {
			List<String> tenants = List.of("fenced", "closed-pool", "dropped-pool");
			for (String tenant : tenants) {
				f.lifecycle.create(tenant, PlacementRequest.onShard("shard-2"));
				f.insertNote(tenant, "before the move");
			}
			// instance B: its own topology (own pools on the same databases), registry, router and provider
			try (Topology topologyB = new Topology()) {
				for (String shard : List.of("shard-1", "shard-2")) {
					HikariConfig config = new HikariConfig();
					config.setJdbcUrl(f.core.pool(shard).getJdbcUrl());
					config.setMaximumPoolSize(2);
					config.setPoolName("b-" + shard);
					topologyB.addShard(shard, config);
				}
				ShardRegistry registryB = new ShardRegistry(f.core.directory(), topologyB, LifecycleFixture.MIGRATOR,
						ShardPoolFactory.urlAndUser(), "b@shards");
				Router routerB = f.core.newRouter(RouterSettings.defaults());
				routerB.loadSnapshot();
				ShardMultiTenantConnectionProvider providerB = new ShardMultiTenantConnectionProvider(routerB,
						topologyB);
				tenants.forEach(t -> assertThat(routerB.route(t).shardId()).isEqualTo("shard-2"));

				// instance A moves every tenant off shard-2 and retires it; B hears nothing
				for (String tenant : tenants) {
					f.lifecycle.move(tenant, "shard-1");
				}
				f.registry.retire("shard-2");
				tenants.forEach(t -> assertThat(routerB.cached(t).orElseThrow().shardId()).isEqualTo("shard-2"));

				// 1. B still has a pool on the retired shard: its fence rejects the stale route, the retry goes to the new owner
				write(providerB, routerB, "fenced");
				// 2. B's pool was closed under the stale route (the retire raced it): refreshed, never "pool closed"
				((HikariDataSource) topologyB.shard("shard-2").dataSource()).close();
				write(providerB, routerB, "closed-pool");
				// 3. B synced its registry (pool dropped) but not its router
				registryB.sync();
				assertThat(topologyB.contains("shard-2")).isFalse();
				write(providerB, routerB, "dropped-pool");

				for (String tenant : tenants) {
					assertThat(routerB.route(tenant).shardId()).isEqualTo("shard-1");
					assertThat(f.rows("shard-1", tenant)).as(tenant).isEqualTo(2);
				}
			}
		}
	}

	private static void write(ShardMultiTenantConnectionProvider provider, Router router, String tenant) {
		LifecycleFixture.withRetry(router, 3, () -> {
			try (io.github.shardtenancy.TenantContext.Scope scope = io.github.shardtenancy.TenantContext.bind(tenant)) {
				Connection c = provider.getConnection(tenant);
				try {
					c.setAutoCommit(false);
					ShardTenancyFixture.insertNote(c, tenant, "after the retire");
					c.commit();
				}
				catch (Exception ex) {
					c.rollback();
					throw ex;
				}
				finally {
					c.setAutoCommit(true);
					provider.releaseConnection(tenant, c);
				}
				return null;
			}
			catch (RuntimeException ex) {
				throw ex;
			}
			catch (Exception ex) {
				throw new IllegalStateException(ex);
			}
		});
	}

	static List<String> list(String... values) {
		return new ArrayList<>(List.of(values));
	}

}
