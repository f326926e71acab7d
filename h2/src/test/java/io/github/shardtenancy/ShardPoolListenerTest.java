package io.github.shardtenancy;

import java.util.List;
import java.util.UUID;
import java.util.concurrent.CopyOnWriteArrayList;

import javax.sql.DataSource;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import io.github.shardtenancy.liquibase.ShardTenancyMigrations;
import io.github.shardtenancy.spi.ShardPoolListener;
import io.github.shardtenancy.testing.ShardTenancyFixture;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@link ShardPoolListener}s added to the builder are told of every pool that joins the topology (the builder's
 * shards, a shard registered at runtime) and of every pool that leaves it (a retired shard, the tenancy closed), with
 * the pool still open when told; a listener that throws keeps neither the shard out nor the other listeners untold.
 * On H2 shards, without Spring.
 */
@DisplayName("ShardPoolListener: told when shard pools join and leave the topology")
class ShardPoolListenerTest {

	private final String name = "listener-" + UUID.randomUUID().toString().substring(0, 8);

	private HikariConfig pool(String database) {
		HikariConfig config = new HikariConfig();
		config.setJdbcUrl("jdbc:h2:mem:" + this.name + "-" + database + ";DB_CLOSE_DELAY=-1;LOCK_TIMEOUT=10000");
		config.setMaximumPoolSize(2);
		return config;
	}

	private record Event(String kind, String shardId, boolean poolOpen) {
	}

	@Test
	@DisplayName("builder shards and a runtime shard are told added; a retired shard and the rest on close are told removed")
	void addedAndRemoved() {
		List<Event> events = new CopyOnWriteArrayList<>();
		ShardPoolListener recording = new ShardPoolListener() {

			@Override
			public void poolAdded(String shardId, DataSource pool) {
				events.add(new Event("added", shardId, !((HikariDataSource) pool).isClosed()));
			}

			@Override
			public void poolRemoved(String shardId, DataSource pool) {
				events.add(new Event("removed", shardId, !((HikariDataSource) pool).isClosed()));
			}

		};
		ShardPoolListener throwing = new ShardPoolListener() {

			@Override
			public void poolAdded(String shardId, DataSource pool) {
				throw new IllegalStateException("listener bug");
			}

		};
		List<String> changelogs = List.of(ShardTenancyFixture.CHANGELOG);
		ShardTenancy tenancy = ShardTenancy.builder()
			.directory(pool("directory"))
			.shard("shard-1", pool("shard-1"))
			.shard("shard-2", pool("shard-2"))
			.tenantTables(ShardTenancyFixture.TABLES)
			.shardMigrator((shardId, dataSource, dialect) -> ShardTenancyMigrations.migrateShard(dataSource, shardId,
					changelogs))
			.shardPoolListener(throwing)
			.shardPoolListener(recording)
			.actor("listener@test")
			.build();
		try {
			ShardTenancyMigrations.migrateDirectory(tenancy.directoryDataSource());
			for (String shardId : tenancy.topology().shardIds()) {
				ShardTenancyMigrations.migrateShard(tenancy.topology().dataSource(shardId), shardId, changelogs);
			}
			tenancy.start();
			assertThat(events).containsExactlyInAnyOrder(new Event("added", "shard-1", true),
					new Event("added", "shard-2", true));

			tenancy.admin().registerShard("shard-3", null, pool("shard-3"));
			assertThat(tenancy.topology().contains("shard-3")).as("the throwing listener kept no shard out").isTrue();
			assertThat(events).endsWith(new Event("added", "shard-3", true));

			DataSource shard3 = tenancy.topology().dataSource("shard-3");
			tenancy.admin().retireShard("shard-3");
			assertThat(events).endsWith(new Event("removed", "shard-3", true));
			assertThat(((HikariDataSource) shard3).isClosed()).as("the retired shard's pool, after the call").isTrue();
		}
		finally {
			tenancy.close();
		}
		assertThat(events.subList(3, events.size())).containsExactlyInAnyOrder(new Event("removed", "shard-3", true),
				new Event("removed", "shard-1", true), new Event("removed", "shard-2", true));
	}

}
