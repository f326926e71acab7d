package io.github.shardtenancy.reference;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;

import com.zaxxer.hikari.HikariConfig;
import io.github.shardtenancy.NoTenantBoundException;
import io.github.shardtenancy.ReferenceStatement;
import io.github.shardtenancy.ShardQueryResult;
import io.github.shardtenancy.ShardTenancy;
import io.github.shardtenancy.TenantTable;
import io.github.shardtenancy.liquibase.ShardTenancyMigrations;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Work with no tenant bound, and queries across shards, on embedded H2 shards: SQL that hides a second statement from
 * a reading of quotes ({@code $$} strings) is counted by H2's own parser, which would run every statement of the text
 * to its end (H2 treats a connection's read-only flag as a hint), and refused before anything runs.
 */
@DisplayName("No tenant bound and queries across shards on H2: one statement as H2's parser reads it")
class NoTenantIsolationTest {

	private static final List<String> HIDDEN = List.of(
			"SELECT $$'$$ AS x FROM pet_type; DELETE FROM pet_type WHERE id = 2 --'",
			"SELECT name FROM pet_type WHERE name <> $$'$$; DELETE FROM pet_type --'",
			"SELECT 1 FROM pet_type; DELETE FROM pet_type WHERE id = 2");

	private final String name = "no-tenant-" + UUID.randomUUID().toString().substring(0, 8);

	private ShardTenancy tenancy;

	@BeforeEach
	void start() throws SQLException {
		this.tenancy = ShardTenancy.builder()
			.directory(pool(url("directory")))
			.shard("shard-1", pool(url("shard-1")))
			.shard("shard-2", pool(url("shard-2")))
			.tenantTables(List.of(new TenantTable("pet", "tenant_id")))
			.referenceTables(List.of("pet_type"))
			.actor("no-tenant@h2")
			.build();
		ShardTenancyMigrations.migrateDirectory(this.tenancy.directoryDataSource());
		for (String shardId : this.tenancy.topology().shardIds()) {
			ShardTenancyMigrations.migrateShard(this.tenancy.topology().dataSource(shardId), shardId,
					List.of("db/testing/pets.xml"));
		}
		this.tenancy.start();
		this.tenancy.referenceTables()
			.write(List.of(ReferenceStatement.of("INSERT INTO pet_type (id, name) VALUES (?, ?)", 1, "cat"),
					ReferenceStatement.of("INSERT INTO pet_type (id, name) VALUES (?, ?)", 2, "dog")));
	}

	@AfterEach
	void stop() {
		if (this.tenancy != null) {
			this.tenancy.close();
		}
		for (String database : List.of("directory", "shard-1", "shard-2")) {
			try (Connection c = DriverManager.getConnection(url(database)); Statement s = c.createStatement()) {
				s.execute("SHUTDOWN");
			}
			catch (SQLException ex) {
				// already gone
			}
		}
	}

	@Test
	@DisplayName("no tenant: a second statement hidden behind a $$ string is refused before it runs, in auto-commit "
			+ "and in a transaction; an ordinary reference read runs, a ';' in a string included")
	void noTenantOneStatement() throws SQLException {
		for (String sql : HIDDEN) {
			for (boolean autoCommit : List.of(true, false)) {
				try (Connection c = this.tenancy.dataSource().getConnection()) {
					c.setAutoCommit(autoCommit);
					assertThatThrownBy(() -> c.prepareStatement(sql)).as(sql)
						.isInstanceOf(NoTenantBoundException.class);
					try (Statement s = c.createStatement()) {
						assertThatThrownBy(() -> s.executeQuery(sql)).as(sql)
							.isInstanceOf(NoTenantBoundException.class);
					}
				}
			}
		}
		assertThat(typeNames("shard-1")).containsExactly("cat", "dog");
		assertThat(typeNames("shard-2")).containsExactly("cat", "dog");
		try (Connection c = this.tenancy.dataSource().getConnection();
				PreparedStatement ps = c.prepareStatement("SELECT name FROM pet_type WHERE name <> ';' ORDER BY id");
				ResultSet rs = ps.executeQuery()) {
			List<String> names = new ArrayList<>();
			while (rs.next()) {
				names.add(rs.getString(1));
			}
			assertThat(names).containsExactly("cat", "dog");
		}
	}

	@Test
	@DisplayName("queryAllShards: a second statement hidden behind a $$ string is refused on every shard; a ';' inside "
			+ "a $$ string is one statement")
	void queryAllShardsOneStatement() throws SQLException {
		for (String sql : HIDDEN) {
			assertThatThrownBy(() -> this.tenancy.tenantTasks()
				.queryAllShards(sql, List.of(), (shard, row) -> row.getString(1), Duration.ofSeconds(10)))
				.as(sql)
				.isInstanceOf(IllegalArgumentException.class)
				.hasMessageContaining("one statement");
		}
		assertThat(typeNames("shard-1")).containsExactly("cat", "dog");
		assertThat(typeNames("shard-2")).containsExactly("cat", "dog");
		ShardQueryResult<String> dollar = this.tenancy.tenantTasks()
			.queryAllShards("SELECT $$;$$ AS x", List.of(), (shard, row) -> row.getString(1), Duration.ofSeconds(10));
		assertThat(dollar.rows()).containsExactly(";", ";");
	}

	private List<String> typeNames(String database) throws SQLException {
		List<String> names = new ArrayList<>();
		try (Connection c = DriverManager.getConnection(url(database)); Statement s = c.createStatement();
				ResultSet rs = s.executeQuery("SELECT name FROM pet_type ORDER BY id")) {
			while (rs.next()) {
				names.add(rs.getString(1));
			}
		}
		return names;
	}

	private String url(String database) {
		return "jdbc:h2:mem:" + this.name + "-" + database + ";DB_CLOSE_DELAY=-1;LOCK_TIMEOUT=10000";
	}

	private static HikariConfig pool(String url) {
		HikariConfig config = new HikariConfig();
		config.setJdbcUrl(url);
		config.setMaximumPoolSize(4);
		return config;
	}

}
