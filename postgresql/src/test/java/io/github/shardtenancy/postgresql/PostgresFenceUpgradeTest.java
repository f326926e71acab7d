package io.github.shardtenancy.postgresql;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;

import com.zaxxer.hikari.HikariDataSource;
import io.github.shardtenancy.liquibase.ShardTenancyMigrations;
import io.github.shardtenancy.testing.pg.ScratchPostgres;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

/**
 * A shard installed by an earlier version (per-operation row triggers with {@code WHEN} clauses, a statement check,
 * an {@code AFTER} change-capture trigger) is upgraded by the shard changelog: its registered tables get the one row
 * trigger, and the functions only the old triggers used are dropped.
 */
@DisplayName("PostgreSQL fence: the shard changelog upgrades the triggers of an earlier version")
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class PostgresFenceUpgradeTest {

	private ScratchPostgres postgres;

	private HikariDataSource pool;

	@BeforeAll
	void startServer() {
		this.postgres = ScratchPostgres.start("fence-upgrade");
		this.pool = this.postgres.pool(2);
	}

	@AfterAll
	void stopServer() {
		if (this.postgres != null) {
			this.postgres.close();
		}
	}

	@Test
	@DisplayName("old triggers and functions are replaced by one row trigger per registered table, which fences and captures")
	void oldTriggersAreReplaced() throws SQLException {
		ShardTenancyMigrations.migrateShard(this.pool, "upgrade-shard", List.of());
		try (Connection c = this.pool.getConnection(); Statement s = c.createStatement()) {
			// The shape an earlier version left: the old functions and triggers on a registered table.
			s.execute("CREATE TABLE old_note (id bigint PRIMARY KEY, tenant_id varchar(64) NOT NULL, body text)");
			s.execute("INSERT INTO shard_fence_table VALUES ('old_note', 'tenant_id')");
			s.execute("INSERT INTO shard_capture_table VALUES ('old_note', 'tenant_id')");
			s.execute("CREATE FUNCTION shard_fence_check_row(text, text) RETURNS void LANGUAGE sql AS 'SELECT'");
			for (String function : List.of("shard_fence_check_statement", "shard_change_capture",
					"shard_fence_row_old_note")) {
				s.execute("CREATE OR REPLACE FUNCTION " + function
						+ "() RETURNS trigger LANGUAGE plpgsql AS 'BEGIN RETURN NULL; END'");
			}
			for (String trigger : List.of("shard_fence_insert_check BEFORE INSERT",
					"shard_fence_update_check BEFORE UPDATE", "shard_fence_delete_check BEFORE DELETE")) {
				s.execute("CREATE TRIGGER " + trigger + " ON old_note FOR EACH ROW WHEN (current_setting("
						+ "'shard_tenancy.role', true) IS DISTINCT FROM 'mover') EXECUTE FUNCTION shard_fence_row_old_note()");
			}
			s.execute("CREATE TRIGGER shard_fence_statement_check BEFORE UPDATE OR DELETE ON old_note "
					+ "FOR EACH STATEMENT EXECUTE FUNCTION shard_fence_check_statement()");
			s.execute("CREATE TRIGGER shard_change_capture AFTER INSERT OR UPDATE OR DELETE ON old_note "
					+ "FOR EACH ROW EXECUTE FUNCTION shard_change_capture()");
			// Not run yet on that shard: the upgrade changeset is new to it.
			s.execute("DELETE FROM databasechangelog WHERE id = 'fence-pg-triggers-2'");
		}

		ShardTenancyMigrations.migrateShard(this.pool, "upgrade-shard", List.of());

		try (Connection c = this.pool.getConnection()) {
			assertThat(strings(c, "SELECT tgname FROM pg_trigger WHERE tgrelid = 'old_note'::regclass AND NOT tgisinternal"))
				.containsExactly("shard_fence_write_check");
			assertThat(strings(c, "SELECT proname FROM pg_proc WHERE proname IN ('shard_fence_check_statement', "
					+ "'shard_change_capture', 'shard_fence_check_row')")).isEmpty();
		}
		PostgresFenceDialect dialect = new PostgresFenceDialect();
		try (Connection c = this.pool.getConnection(); Statement s = c.createStatement()) {
			s.execute("INSERT INTO shard_fence VALUES ('t1', 'OWNED', 1, now())");
			s.execute("INSERT INTO shard_capture VALUES ('t1', 'm1', now())");
			c.setAutoCommit(false);
			dialect.begin(c, "t1", 1);
			s.execute("INSERT INTO old_note VALUES (7, 't1', 'captured')");
			SQLException foreign = catchThrowableOfType(SQLException.class,
					() -> s.execute("INSERT INTO old_note VALUES (8, 't2', 'foreign')"));
			assertThat(foreign.getSQLState()).isEqualTo("40001");
			assertThat(foreign.getMessage()).contains("FOREIGN_ROW");
			c.rollback();
			dialect.begin(c, "t1", 1);
			s.execute("INSERT INTO old_note VALUES (7, 't1', 'captured')");
			c.commit();
			dialect.end(c);
			c.setAutoCommit(true);
			assertThat(strings(c, "SELECT table_name || ':' || row_key FROM shard_change WHERE tenant_id = 't1'"))
				.containsExactly("old_note:7");
		}
	}

	private static List<String> strings(Connection c, String sql) throws SQLException {
		List<String> values = new ArrayList<>();
		try (PreparedStatement ps = c.prepareStatement(sql); ResultSet rs = ps.executeQuery()) {
			while (rs.next()) {
				values.add(rs.getString(1));
			}
		}
		return values;
	}

}
