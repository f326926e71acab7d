package io.github.shardtenancy;

import java.util.List;
import java.util.UUID;

import javax.sql.DataSource;

import com.zaxxer.hikari.HikariConfig;
import io.github.shardtenancy.internal.Internals;
import io.github.shardtenancy.internal.fence.FenceState;
import io.github.shardtenancy.internal.fence.ShardFence;
import io.github.shardtenancy.liquibase.ShardTenancyMigrations;
import io.github.shardtenancy.retry.FenceRejection;
import io.github.shardtenancy.testing.ids.IntTickets;
import io.github.shardtenancy.testing.ids.Ticket;
import io.github.shardtenancy.testing.ids.Tickets;
import org.hibernate.SessionFactory;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * {@link ShardSafeId} on fenced H2 shards, through plain Hibernate on {@link ShardTenancy#builder()}: two application
 * instances (two tenancies on the same directory and shards) insert at once, each tenant on its own shard, and a
 * tenant is then moved online next to the other one's rows: no id is used twice, and the move copies every row
 * ({@link Tickets#twoInstancesThenMove}); the same with {@code Integer} ids ({@link IntTickets#twoInstancesThenMove}).
 */
@DisplayName("@ShardSafeId: two instances insert on two shards at once, then a move brings the rows together")
class ShardSafeIdTest {

	private final String name = "ids-" + UUID.randomUUID().toString().substring(0, 8);

	private HikariConfig pool(String database) {
		HikariConfig config = new HikariConfig();
		config.setJdbcUrl("jdbc:h2:mem:" + this.name + "-" + database + ";DB_CLOSE_DELAY=-1;LOCK_TIMEOUT=10000");
		config.setMaximumPoolSize(4);
		return config;
	}

	private static void migrate(ShardTenancy tenancy) {
		ShardTenancyMigrations.migrateDirectory(tenancy.directoryDataSource());
		for (String shardId : tenancy.topology().shardIds()) {
			ShardTenancyMigrations.migrateShard(tenancy.topology().dataSource(shardId), shardId,
					List.of(Tickets.CHANGELOG));
		}
	}

	@Test
	@DisplayName("concurrent inserts by two instances on two shards, then an online move: every id distinct, all rows on the target")
	void twoInstancesThenMove() throws Exception {
		try (ShardTenancy first = Tickets.instance("first@test", this::pool);
				ShardTenancy second = Tickets.instance("second@test", this::pool)) {
			migrate(first);
			first.start();
			second.start();

			List<Long> ids = Tickets.twoInstancesThenMove(first, second, "org.hibernate.dialect.H2Dialect", 300);

			int firstGenerator = Internals.wiring(first).ids().generatorId().orElseThrow();
			int secondGenerator = Internals.wiring(second).ids().generatorId().orElseThrow();
			assertThat(ids).extracting(IdSettings::generatorOf).containsOnly(firstGenerator, secondGenerator);
			// Ids for plain JDBC come from the same generator.
			long jdbcId = first.nextId();
			assertThat(IdSettings.generatorOf(jdbcId)).isEqualTo(firstGenerator);
			assertThat(ids).doesNotContain(jdbcId);
			assertThat(jdbcId).isGreaterThan(ids.stream().filter((id) -> IdSettings.generatorOf(id) == firstGenerator)
				.mapToLong(Long::longValue).max().orElseThrow());
		}
	}

	@Test
	@DisplayName("Integer ids: many threads of two instances on two shards, then an online move: every id distinct, all rows on the target")
	void integerIdsOfTwoInstancesThenMove() throws Exception {
		try (ShardTenancy first = Tickets.instance("first@test", this::pool);
				ShardTenancy second = Tickets.instance("second@test", this::pool)) {
			migrate(first);
			first.start();
			second.start();

			List<Integer> ids = IntTickets.twoInstancesThenMove(first, second, "org.hibernate.dialect.H2Dialect", "acme",
					"globex", 50);

			// Plain JDBC ids of the table come from its counter, and are new.
			int jdbcId = first.nextIntId("int_ticket");
			assertThat(ids).doesNotContain(jdbcId);
			assertThat(jdbcId).isPositive();
		}
	}

	@Test
	@DisplayName("an entity persisted in a transaction the fence rejected loses its id, and gets a new one when persisted again")
	void rejectedAttemptGetsANewId() throws Exception {
		try (ShardTenancy tenancy = Tickets.instance("reject@test", this::pool)) {
			migrate(tenancy);
			tenancy.start();
			DirectoryEntry entry = tenancy.admin().create("initech", "shard-1");
			DataSource shard = tenancy.topology().dataSource("shard-1");
			try (SessionFactory factory = Tickets.sessionFactory(tenancy, "org.hibernate.dialect.H2Dialect")) {
				Ticket ticket = new Ticket("built once");
				ShardFence.set(shard, "shard-1", "initech", FenceState.FROZEN, entry.version());
				assertThatThrownBy(() -> TenantContext.runAs("initech", () -> factory.inTransaction((session) -> {
					session.persist(ticket);
					session.flush();
				}))).satisfies((ex) -> assertThat(FenceRejection.find(ex)).isPresent());
				assertThat(ticket.getId()).as("reset by the rollback").isNull();

				ShardFence.set(shard, "shard-1", "initech", FenceState.OWNED, entry.version());
				TenantContext.runAs("initech", () -> factory.inTransaction((session) -> session.persist(ticket)));

				assertThat(ticket.getId()).isNotNull();
				assertThat(Tickets.ids(shard)).containsExactly(ticket.getId());
			}
		}
	}

}
