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
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@code shard_fence.captured}, which {@code shard_fence_begin} reads instead of joining {@code shard_capture}, follows
 * {@code shard_capture} whatever the order of the changes, and a shard installed before the column existed gets it
 * with the right values: a captured tenant's writes are logged after the upgrade, none is lost to the mover.
 */
@DisplayName("PostgreSQL fence: the capture flag on the fence row follows shard_capture")
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class PostgresFenceCaptureFlagTest {

	private final PostgresFenceDialect dialect = new PostgresFenceDialect();

	private ScratchPostgres postgres;

	private HikariDataSource pool;

	@BeforeAll
	void startServer() throws SQLException {
		this.postgres = ScratchPostgres.start("fence-capture-flag");
		this.pool = this.postgres.pool(2);
		ShardTenancyMigrations.migrateShard(this.pool, "flag-shard", List.of());
		try (Connection c = this.pool.getConnection(); Statement s = c.createStatement()) {
			s.execute("CREATE TABLE flag_note (id bigint PRIMARY KEY, tenant_id varchar(64) NOT NULL)");
			this.dialect.installWriteCheck(c, "flag_note", "tenant_id", false);
			this.dialect.installChangeCapture(c, "flag_note", "tenant_id");
		}
	}

	@AfterAll
	void stopServer() {
		if (this.postgres != null) {
			this.postgres.close();
		}
	}

	@BeforeEach
	void clean() throws SQLException {
		try (Connection c = this.pool.getConnection(); Statement s = c.createStatement()) {
			s.execute("DELETE FROM shard_capture");
			s.execute("DELETE FROM shard_change");
			s.execute("DELETE FROM shard_fence");
			this.dialect.beginMover(c, "t1");
			s.execute("DELETE FROM flag_note");
			c.commit();
			this.dialect.end(c);
			c.setAutoCommit(true);
		}
	}

	@Test
	@DisplayName("capture on after the fence row, fence row written while captured, capture off: the flag and the log follow")
	void flagFollowsCapture() throws SQLException {
		sql("INSERT INTO shard_fence (tenant_id, state, min_version, updated_at) VALUES ('t1', 'OWNED', 1, now())");
		assertThat(captured("t1")).isFalse();
		sql("INSERT INTO shard_capture VALUES ('t1', 'm1', now())");
		assertThat(captured("t1")).isTrue();
		write(1);
		// A write of the fence row that names the column keeps it as shard_capture says.
		sql("UPDATE shard_fence SET captured = false, min_version = 2 WHERE tenant_id = 't1'");
		assertThat(captured("t1")).isTrue();
		write(2);
		sql("UPDATE shard_capture SET tenant_id = 't2' WHERE tenant_id = 't1'");
		assertThat(captured("t1")).isFalse();
		sql("UPDATE shard_capture SET tenant_id = 't1' WHERE tenant_id = 't2'");
		assertThat(captured("t1")).isTrue();
		sql("DELETE FROM shard_capture WHERE tenant_id = 't1'");
		assertThat(captured("t1")).isFalse();
		write(3);
		assertThat(loggedKeys()).containsExactly("1", "2");
	}

	@Test
	@DisplayName("a fence row inserted while the tenant is already captured starts captured")
	void fenceRowAfterCapture() throws SQLException {
		sql("INSERT INTO shard_capture VALUES ('t1', 'm1', now())");
		sql("INSERT INTO shard_fence (tenant_id, state, min_version, updated_at) VALUES ('t1', 'OWNED', 1, now())");
		assertThat(captured("t1")).isTrue();
		write(4);
		assertThat(loggedKeys()).containsExactly("4");
	}

	@Test
	@DisplayName("a shard of an earlier version, with a tenant captured, gets the column with its value and logs its writes")
	void upgradeKeepsCapture() throws SQLException {
		sql("INSERT INTO shard_fence (tenant_id, state, min_version, updated_at) VALUES ('t1', 'OWNED', 1, now())");
		sql("INSERT INTO shard_fence (tenant_id, state, min_version, updated_at) VALUES ('t2', 'OWNED', 1, now())");
		// The shape an earlier version left: no column, no triggers, a move of t1 capturing.
		sql("DROP TRIGGER shard_fence_capture_sync ON shard_fence");
		sql("DROP TRIGGER shard_fence_capture_sync ON shard_capture");
		sql("ALTER TABLE shard_fence DROP COLUMN captured");
		sql("INSERT INTO shard_capture VALUES ('t1', 'm1', now())");
		sql("DELETE FROM databasechangelog WHERE id IN ('fence-pg-capture-1', 'fence-pg-capture-2')");

		ShardTenancyMigrations.migrateShard(this.pool, "flag-shard", List.of());

		assertThat(captured("t1")).isTrue();
		assertThat(captured("t2")).isFalse();
		write(5);
		assertThat(loggedKeys()).containsExactly("5");
		assertThat(strings("SELECT tgrelid::regclass::text FROM pg_trigger WHERE tgname = 'shard_fence_capture_sync' "
				+ "ORDER BY 1")).containsExactly("shard_capture", "shard_fence");
	}

	/** Inserts a row of t1 in a transaction begun by the dialect, and commits it. */
	private void write(long id) throws SQLException {
		try (Connection c = this.pool.getConnection()) {
			c.setAutoCommit(false);
			this.dialect.begin(c, "t1", 5);
			try (PreparedStatement ps = c.prepareStatement("INSERT INTO flag_note VALUES (?, 't1')")) {
				ps.setLong(1, id);
				ps.executeUpdate();
			}
			c.commit();
			this.dialect.end(c);
			c.setAutoCommit(true);
		}
	}

	private boolean captured(String tenant) throws SQLException {
		return strings("SELECT captured::text FROM shard_fence WHERE tenant_id = '" + tenant + "'").equals(
				List.of("true"));
	}

	private List<String> loggedKeys() throws SQLException {
		return strings("SELECT row_key FROM shard_change WHERE tenant_id = 't1' ORDER BY seq");
	}

	private void sql(String sql) throws SQLException {
		try (Connection c = this.pool.getConnection(); Statement s = c.createStatement()) {
			s.execute(sql);
		}
	}

	private List<String> strings(String sql) throws SQLException {
		List<String> values = new ArrayList<>();
		try (Connection c = this.pool.getConnection(); PreparedStatement ps = c.prepareStatement(sql);
				ResultSet rs = ps.executeQuery()) {
			while (rs.next()) {
				values.add(rs.getString(1));
			}
		}
		return values;
	}

}
