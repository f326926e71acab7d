package io.github.shardtenancy;

import java.util.List;
import java.util.UUID;

import com.zaxxer.hikari.HikariConfig;
import io.github.shardtenancy.liquibase.ShardTenancyMigrations;
import io.github.shardtenancy.testing.ids.IntTickets;
import io.github.shardtenancy.testing.ids.Tickets;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@link ShardSafeId} on {@code Integer} ids on fenced H2 shards, through plain Hibernate on
 * {@link ShardTenancy#builder()}: two application instances (two tenancies on the same directory) insert from many
 * threads at once, each tenant on its own shard, and a tenant is then moved online next to the other one's rows
 * ({@link IntTickets#twoInstancesThenMove}).
 */
@DisplayName("@ShardSafeId Integer ids: two instances, many threads, two shards, then a move brings the rows together")
class IntegerShardSafeIdTest {

	private final String name = "int-ids-" + UUID.randomUUID().toString().substring(0, 8);

	private HikariConfig pool(String database) {
		HikariConfig config = new HikariConfig();
		config.setJdbcUrl("jdbc:h2:mem:" + this.name + "-" + database + ";DB_CLOSE_DELAY=-1;LOCK_TIMEOUT=10000");
		config.setMaximumPoolSize(6);
		return config;
	}

	@Test
	@DisplayName("concurrent inserts by two instances on two shards, then an online move: every id distinct, all rows on the target")
	void twoInstancesThenMove() throws Exception {
		try (ShardTenancy first = Tickets.instance("first@test", this::pool);
				ShardTenancy second = Tickets.instance("second@test", this::pool)) {
			ShardTenancyMigrations.migrateDirectory(first.directoryDataSource());
			for (String shardId : first.topology().shardIds()) {
				ShardTenancyMigrations.migrateShard(first.topology().dataSource(shardId), shardId,
						List.of(Tickets.CHANGELOG));
			}
			first.start();
			second.start();

			List<Integer> ids = IntTickets.twoInstancesThenMove(first, second, "org.hibernate.dialect.H2Dialect", "acme",
					"globex", 50);

			// Plain JDBC ids come from the same blocks, and are new.
			int jdbcId = first.nextIntId();
			assertThat(ids).doesNotContain(jdbcId);
			assertThat(jdbcId).isPositive();
		}
	}

}
