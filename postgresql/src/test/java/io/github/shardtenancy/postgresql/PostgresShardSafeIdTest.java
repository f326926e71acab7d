package io.github.shardtenancy.postgresql;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.List;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import io.github.shardtenancy.ShardTenancy;
import io.github.shardtenancy.liquibase.ShardTenancyMigrations;
import io.github.shardtenancy.testing.ids.IntTickets;
import io.github.shardtenancy.testing.ids.Tickets;
import io.github.shardtenancy.testing.pg.ScratchPostgres;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@code @ShardSafeId} on embedded PostgreSQL (PL/pgSQL fence, online mover with change capture), through plain
 * Hibernate on {@link ShardTenancy#builder()}: two application instances lease two generator ids from the PostgreSQL
 * directory (the directory changelog created {@code shard_id_generator}), insert at once on two shards, and a tenant
 * is moved online next to the other one's rows with no key collision; closing an instance releases its lease. The same
 * with {@code Integer} ids from blocks of the directory's counter of their table ({@code shard_id_block}).
 */
@DisplayName("PostgreSQL: @ShardSafeId ids of two instances on two shards survive a move")
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class PostgresShardSafeIdTest {

	private ScratchPostgres postgres;

	private final java.util.Map<String, HikariDataSource> databases = new java.util.LinkedHashMap<>();

	@BeforeAll
	void startServer() throws SQLException {
		this.postgres = ScratchPostgres.start("shard-safe-ids");
		for (String database : List.of("directory", "shard_1", "shard_2")) {
			this.databases.put(database, this.postgres.createDatabase(database, 2));
		}
		ShardTenancyMigrations.migrateDirectory(this.databases.get("directory"));
		for (String shard : List.of("shard_1", "shard_2")) {
			ShardTenancyMigrations.migrateShard(this.databases.get(shard), shard.replace('_', '-'),
					List.of(Tickets.CHANGELOG));
		}
	}

	@AfterAll
	void stopServer() {
		if (this.postgres != null) {
			this.postgres.close();
		}
	}

	private HikariConfig pool(String database) {
		HikariDataSource existing = this.databases.get(database.replace('-', '_'));
		HikariConfig config = new HikariConfig();
		config.setJdbcUrl(existing.getJdbcUrl());
		config.setUsername(existing.getUsername());
		config.setPassword(existing.getPassword());
		config.setMaximumPoolSize(4);
		return config;
	}

	@Test
	@DisplayName("concurrent inserts by two instances on two shards, then an online move: every id distinct, all rows on the target")
	void twoInstancesThenMove() throws Exception {
		try (ShardTenancy first = Tickets.instance("first@pg", this::pool);
				ShardTenancy second = Tickets.instance("second@pg", this::pool)) {
			first.start();
			second.start();

			Tickets.twoInstancesThenMove(first, second, "org.hibernate.dialect.PostgreSQLDialect", 200);

			assertThat(leaseOwners()).as("two live leases").hasSize(2).doesNotContainNull();
		}
		assertThat(leaseOwners()).as("both leases released on close").hasSize(2).containsOnlyNulls();
	}

	@Test
	@DisplayName("Integer ids: concurrent inserts by two instances on two shards, then an online move: every id distinct, all rows on the target")
	void integerIdsOfTwoInstancesThenMove() throws Exception {
		try (ShardTenancy first = Tickets.instance("first-int@pg", this::pool);
				ShardTenancy second = Tickets.instance("second-int@pg", this::pool)) {
			first.start();
			second.start();

			List<Integer> ids = IntTickets.twoInstancesThenMove(first, second, "org.hibernate.dialect.PostgreSQLDialect",
					"initech", "hooli", 30);

			long counter = tableCounter();
			assertThat(ids).as("below the counter of table int_ticket").allMatch((id) -> id < counter);
		}
	}

	private long tableCounter() throws SQLException {
		try (Connection c = this.databases.get("directory").getConnection();
				PreparedStatement ps = c.prepareStatement(
						"SELECT next_id FROM shard_id_block WHERE counter_name = 'int_ticket'");
				ResultSet rs = ps.executeQuery()) {
			assertThat(rs.next()).isTrue();
			return rs.getLong(1);
		}
	}

	private List<String> leaseOwners() throws SQLException {
		List<String> owners = new java.util.ArrayList<>();
		try (Connection c = this.databases.get("directory").getConnection();
				PreparedStatement ps = c.prepareStatement("SELECT owner FROM shard_id_generator ORDER BY generator_id");
				ResultSet rs = ps.executeQuery()) {
			while (rs.next()) {
				owners.add(rs.getString(1));
			}
		}
		return owners;
	}

}
