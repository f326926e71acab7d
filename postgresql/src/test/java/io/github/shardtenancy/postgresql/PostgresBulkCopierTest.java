package io.github.shardtenancy.postgresql;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;

import com.zaxxer.hikari.HikariDataSource;
import io.github.shardtenancy.internal.fence.FenceState;
import io.github.shardtenancy.internal.fence.ShardFence;
import io.github.shardtenancy.liquibase.ShardTenancyMigrations;
import io.github.shardtenancy.spi.BulkCopier;
import io.github.shardtenancy.testing.pg.ScratchPostgres;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * {@link PostgresBulkCopier} on embedded PostgreSQL, called as the online mover calls it (the source in a snapshot
 * read, the target under the mover's mark, a commit and a new mark after every batch): with a role that may set
 * {@code session_replication_role} (the superuser; a role granted {@code SET ON PARAMETER}) each batch's
 * {@code COPY} runs with {@code replica}, with a role that may not it runs with the row triggers, and both copy the
 * same rows. While a batch runs with {@code replica}, every other session on the target keeps its fence: a foreign-row
 * write of another tenant, an unbound write and a begin of the moving tenant (not OWNED there) are rejected. The
 * foreign keys the replica copy does not check row by row are checked after it, with the key's SQLState.
 */
@DisplayName("PostgreSQL bulk copier: COPY with session_replication_role = replica where the role may, the fence kept")
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class PostgresBulkCopierTest {

	private static final String MOVING = "moving";

	private static final String NEIGHBOUR = "neighbour";

	private static final String PLAIN_ROLE = "copier_plain";

	private static final String GRANTED_ROLE = "copier_granted";

	private static final int ORDERS = 300;

	private static final int LINES_PER_ORDER = 4;

	private final PostgresFenceDialect dialect = new PostgresFenceDialect();

	private final BulkCopier copier = new PostgresBulkCopier();

	private ScratchPostgres postgres;

	private HikariDataSource source;

	private HikariDataSource target;

	@BeforeAll
	void servers() throws SQLException {
		this.postgres = ScratchPostgres.start("bulk-copier");
		this.source = this.postgres.createDatabase("copy_source", 2);
		this.target = this.postgres.createDatabase("copy_target", 4);
		try (Connection c = this.source.getConnection(); Statement st = c.createStatement()) {
			st.execute("CREATE ROLE " + PLAIN_ROLE + " LOGIN PASSWORD 'copier'");
			st.execute("CREATE ROLE " + GRANTED_ROLE + " LOGIN PASSWORD 'copier'");
			st.execute("GRANT SET ON PARAMETER session_replication_role TO " + GRANTED_ROLE);
		}
		for (HikariDataSource shard : List.of(this.source, this.target)) {
			ShardTenancyMigrations.migrateShard(shard, shard == this.source ? "source" : "target", List.of());
			try (Connection c = shard.getConnection(); Statement st = c.createStatement()) {
				st.execute("CREATE TABLE copy_order (id BIGINT PRIMARY KEY, tenant_id VARCHAR(64) NOT NULL, "
						+ "amount INT NOT NULL)");
				st.execute("CREATE TABLE copy_line (id BIGINT PRIMARY KEY, tenant_id VARCHAR(64) NOT NULL, "
						+ "order_id BIGINT NOT NULL REFERENCES copy_order (id), qty INT NOT NULL)");
				// A table with a trigger of the application: a copy is not the application's insert, so it must not fire.
				st.execute("CREATE TABLE copy_audited (id BIGINT PRIMARY KEY, tenant_id VARCHAR(64) NOT NULL)");
				st.execute("CREATE TABLE copy_audit_log (id BIGINT)");
				st.execute("CREATE FUNCTION copy_audit() RETURNS trigger LANGUAGE plpgsql AS "
						+ "$$ BEGIN INSERT INTO copy_audit_log VALUES (NEW.id); RETURN NEW; END $$");
				st.execute("CREATE TRIGGER copy_audit AFTER INSERT ON copy_audited FOR EACH ROW "
						+ "EXECUTE FUNCTION copy_audit()");
				// A deferrable unique constraint is checked by an internal trigger that replica would switch off.
				st.execute("CREATE TABLE copy_coupon (id BIGINT PRIMARY KEY, tenant_id VARCHAR(64) NOT NULL, "
						+ "code VARCHAR(20) NOT NULL, UNIQUE (tenant_id, code) DEFERRABLE)");
				for (String table : List.of("copy_order", "copy_line", "copy_audited", "copy_coupon")) {
					this.dialect.installWriteCheck(c, table, "tenant_id", false);
					this.dialect.installChangeCapture(c, table, "tenant_id");
				}
				st.execute("GRANT ALL ON ALL TABLES IN SCHEMA public TO " + PLAIN_ROLE + ", " + GRANTED_ROLE);
				st.execute("GRANT ALL ON ALL SEQUENCES IN SCHEMA public TO " + PLAIN_ROLE + ", " + GRANTED_ROLE);
			}
		}
		ShardFence.set(this.source, "source", MOVING, FenceState.OWNED, 0);
		ShardFence.set(this.target, "target", NEIGHBOUR, FenceState.OWNED, 0);
		try (Connection c = this.source.getConnection()) {
			this.dialect.beginMover(c, MOVING);
			try (Statement st = c.createStatement()) {
				st.execute("INSERT INTO copy_order SELECT n, '" + MOVING + "', n FROM generate_series(1, " + ORDERS
						+ ") n");
				st.execute("INSERT INTO copy_line SELECT n, '" + MOVING + "', 1 + n % " + ORDERS
						+ ", n FROM generate_series(1, " + ORDERS * LINES_PER_ORDER + ") n");
				st.execute("INSERT INTO copy_audited SELECT n, '" + MOVING + "' FROM generate_series(1, 50) n");
			}
			c.commit();
			this.dialect.end(c);
			c.setAutoCommit(true);
		}
	}

	@AfterAll
	void stop() {
		if (this.postgres != null) {
			this.postgres.close();
		}
	}

	@BeforeEach
	void emptyTarget() throws SQLException {
		try (Connection c = this.target.getConnection()) {
			this.dialect.beginMover(c, MOVING);
			try (Statement st = c.createStatement()) {
				st.execute("DELETE FROM copy_line WHERE tenant_id = '" + MOVING + "'");
				st.execute("DELETE FROM copy_order WHERE tenant_id = '" + MOVING + "'");
				st.execute("DELETE FROM copy_audited WHERE tenant_id = '" + MOVING + "'");
				st.execute("DELETE FROM copy_audit_log");
			}
			c.commit();
			this.dialect.end(c);
			c.setAutoCommit(true);
		}
	}

	/** What a copy saw: the target's session_replication_role before each commit, and the other sessions' fence. */
	private final class Observations {

		final List<String> roles = new ArrayList<>();

		final List<String> rejections = new ArrayList<>();

	}

	/**
	 * Copies tables of the moving tenant as the mover does, with the target connected as {@code role}
	 * ({@code null}: the superuser), 128 rows per batch; before each batch commits, records the target's role
	 * setting and, once, tries the writes the fence must reject from other sessions.
	 */
	private Observations copy(String role, String... tables) throws SQLException {
		Observations seen = new Observations();
		String url = this.target.getJdbcUrl();
		// Connections of their own, closed after the copy: a failed copy cancels the source's COPY out.
		try (Connection from = DriverManager.getConnection(this.source.getJdbcUrl(), this.source.getUsername(),
				this.source.getPassword());
				Connection to = (role != null) ? DriverManager.getConnection(url, role, "copier")
						: DriverManager.getConnection(url, this.target.getUsername(), this.target.getPassword())) {
			this.dialect.beginSnapshotRead(from);
			to.setAutoCommit(false);
			this.dialect.beginMover(to, MOVING);
			try {
				for (String table : tables) {
					String columns = table.equals("copy_order") ? "id, tenant_id, amount"
							: table.equals("copy_line") ? "id, tenant_id, order_id, qty" : "id, tenant_id";
					String select = "SELECT " + columns + " FROM " + table + " WHERE tenant_id = '" + MOVING + "'";
					this.copier.copy(from, select, to, table, columns, 128, (soFar) -> {
						seen.roles.add(replicationRole(to));
						if (seen.rejections.isEmpty()) {
							seen.rejections.addAll(fenceOfOthers());
						}
						to.commit();
						this.dialect.beginMover(to, MOVING);
					});
				}
				// Nothing outlives the batch's transaction: the next one, on the same connection, is back to origin.
				seen.roles.add("after the copy: " + replicationRole(to));
				from.commit();
			}
			finally {
				this.dialect.end(to);
				this.dialect.end(from);
			}
		}
		return seen;
	}

	private static String replicationRole(Connection c) throws SQLException {
		try (Statement st = c.createStatement(); ResultSet rs = st.executeQuery("SHOW session_replication_role")) {
			rs.next();
			return rs.getString(1);
		}
	}

	/** @return the fence's reason for each write tried by other sessions on the target, or "ACCEPTED" */
	private List<String> fenceOfOthers() throws SQLException {
		List<String> reasons = new ArrayList<>();
		// The neighbour (OWNED on the target) writes a row of the moving tenant: FOREIGN_ROW.
		reasons.add(tryWrite(NEIGHBOUR, "INSERT INTO copy_order VALUES (900001, '" + MOVING + "', 1)"));
		reasons.add(tryWrite(NEIGHBOUR, "INSERT INTO copy_line VALUES (900001, '" + MOVING + "', 1, 1)"));
		// A write bound to no tenant: NO_TENANT.
		reasons.add(tryWrite(null, "INSERT INTO copy_order VALUES (900002, '" + NEIGHBOUR + "', 1)"));
		// The moving tenant's application, on a shard where it is not OWNED: NOT_OWNED at begin.
		reasons.add(tryWrite(MOVING, "INSERT INTO copy_order VALUES (900003, '" + MOVING + "', 1)"));
		return reasons;
	}

	private String tryWrite(String tenant, String sql) throws SQLException {
		try (Connection c = this.target.getConnection()) {
			try {
				if (tenant != null) {
					this.dialect.begin(c, tenant, 1);
				}
				else {
					c.setAutoCommit(false);
				}
				try (Statement st = c.createStatement()) {
					st.execute(sql);
				}
				c.rollback();
				return "ACCEPTED";
			}
			catch (SQLException ex) {
				c.rollback();
				assertThat(ex.getSQLState()).as(ex.getMessage()).isEqualTo("40001");
				for (String reason : List.of("FOREIGN_ROW", "NO_TENANT", "NOT_OWNED")) {
					if (ex.getMessage().contains(reason)) {
						return reason;
					}
				}
				return ex.getMessage();
			}
			finally {
				this.dialect.end(c);
				c.setAutoCommit(true);
			}
		}
	}

	private long[] countAndSum(HikariDataSource shard, String table) throws SQLException {
		try (Connection c = shard.getConnection(); Statement st = c.createStatement();
				ResultSet rs = st.executeQuery("SELECT COUNT(*), COALESCE(SUM(hashtext(t::text)), 0) FROM " + table
						+ " t WHERE tenant_id = '" + MOVING + "'")) {
			rs.next();
			return new long[] { rs.getLong(1), rs.getLong(2) };
		}
	}

	private void assertCopied(String... tables) throws SQLException {
		for (String table : tables) {
			assertThat(countAndSum(this.target, table)).as("rows of " + table + " on the target")
				.isEqualTo(countAndSum(this.source, table));
		}
		try (Connection c = this.target.getConnection(); Statement st = c.createStatement();
				ResultSet rs = st.executeQuery("SELECT COUNT(*) FROM shard_change")) {
			rs.next();
			assertThat(rs.getLong(1)).as("rows the target's change capture logged").isZero();
		}
	}

	@Test
	@DisplayName("superuser: every batch runs with replica, the rows arrive whole, other sessions keep their fence")
	void superuserCopiesWithReplicaRole() throws SQLException {
		assertThat(countAndSum(this.source, "copy_line")[0]).isEqualTo(ORDERS * LINES_PER_ORDER);

		Observations seen = copy(null, "copy_order", "copy_line");

		assertCopied("copy_order", "copy_line");
		assertThat(seen.roles).hasSize(3 + 10 + 1).startsWith("replica").endsWith("after the copy: origin");
		assertThat(seen.roles.subList(0, seen.roles.size() - 1)).containsOnly("replica");
		assertThat(seen.rejections).containsExactly("FOREIGN_ROW", "FOREIGN_ROW", "NO_TENANT", "NOT_OWNED");
	}

	@Test
	@DisplayName("a role granted SET ON PARAMETER session_replication_role copies with replica too")
	void grantedRoleCopiesWithReplicaRole() throws SQLException {
		Observations seen = copy(GRANTED_ROLE, "copy_order", "copy_line");

		assertCopied("copy_order", "copy_line");
		assertThat(seen.roles.subList(0, seen.roles.size() - 1)).isNotEmpty().containsOnly("replica");
		assertThat(seen.rejections).containsExactly("FOREIGN_ROW", "FOREIGN_ROW", "NO_TENANT", "NOT_OWNED");
	}

	@Test
	@DisplayName("a role without the privilege copies the same rows with the row triggers (origin)")
	void roleWithoutPrivilegeCopiesWithTriggers() throws SQLException {
		try (Connection c = DriverManager.getConnection(this.target.getJdbcUrl(), PLAIN_ROLE, "copier")) {
			assertThat(PostgresBulkCopier.replicaRefusal(c, "copy_order"))
				.contains("may not set session_replication_role")
				.contains(PLAIN_ROLE);
		}

		Observations seen = copy(PLAIN_ROLE, "copy_order", "copy_line");

		assertCopied("copy_order", "copy_line");
		assertThat(seen.roles).isNotEmpty().containsOnly("origin", "after the copy: origin");
		assertThat(seen.rejections).containsExactly("FOREIGN_ROW", "FOREIGN_ROW", "NO_TENANT", "NOT_OWNED");
	}

	@Test
	@DisplayName("a table with a trigger of the application copies with replica: the trigger does not fire for the "
			+ "copy (issue 27); a deferrable unique constraint or a trigger enabled REPLICA keeps the trigger path")
	void applicationTriggerDoesNotFireForTheCopy() throws SQLException {
		try (Connection c = this.target.getConnection()) {
			assertThat(PostgresBulkCopier.replicaRefusal(c, "copy_audited")).isNull();
			assertThat(PostgresBulkCopier.replicaRefusal(c, "copy_line")).isNull();
			assertThat(PostgresBulkCopier.replicaRefusal(c, "copy_coupon")).as("deferrable unique constraint")
				.startsWith("trigger ");
			assertThat(PostgresBulkCopier.replicaRefusal(c, "copy_missing")).isEqualTo("the table was not found");
		}

		Observations seen = copy(null, "copy_audited");

		assertCopied("copy_audited");
		assertThat(seen.roles).isNotEmpty().containsOnly("replica", "after the copy: origin");
		try (Connection c = this.target.getConnection(); Statement st = c.createStatement();
				ResultSet rs = st.executeQuery("SELECT COUNT(*) FROM copy_audit_log")) {
			rs.next();
			assertThat(rs.getLong(1)).as("rows the application's trigger saw").isZero();
		}
		try (Connection c = this.target.getConnection(); Statement st = c.createStatement()) {
			st.execute("ALTER TABLE copy_audited ENABLE REPLICA TRIGGER copy_audit");
			try {
				assertThat(PostgresBulkCopier.replicaRefusal(c, "copy_audited"))
					.isEqualTo("trigger copy_audit is enabled REPLICA and would fire");
			}
			finally {
				st.execute("ALTER TABLE copy_audited ENABLE TRIGGER copy_audit");
			}
		}
	}

	@Test
	@DisplayName("a table with a column compared other than byte by byte (citext) keeps the row triggers: the copy's tenant filter could select another tenant's rows")
	void caseInsensitiveColumnKeepsTheRowTriggers() throws SQLException {
		try (Connection c = this.target.getConnection(); Statement st = c.createStatement()) {
			st.execute("CREATE EXTENSION IF NOT EXISTS citext");
			st.execute("CREATE TABLE copy_ci (id BIGINT PRIMARY KEY, tenant_id citext NOT NULL)");
			st.execute("CREATE TABLE copy_cs (id BIGINT PRIMARY KEY, tenant_id text NOT NULL)");
			c.setAutoCommit(false);
			try {
				assertThat(PostgresBulkCopier.replicaRefusal(c, "copy_ci")).contains("byte by byte");
				assertThat(PostgresBulkCopier.replicaRefusal(c, "copy_cs")).isNull();
			}
			finally {
				c.rollback();
				c.setAutoCommit(true);
			}
		}
	}

	@Test
	@DisplayName("rows whose referenced row is not on the target fail the copy with 23503, with or without replica")
	void missingReferencedRowsFailTheCopy() throws SQLException {
		// The lines without their orders: the foreign key's own check (origin) and the check after a replica copy.
		for (String role : new String[] { null, PLAIN_ROLE }) {
			// The batches before the failure stay committed, as with the triggers; the mover's copy step deletes
			// the tenant's rows on the target before it copies again.
			emptyTarget();
			assertThatThrownBy(() -> copy(role, "copy_line")).as("role " + role)
				.isInstanceOfSatisfying(SQLException.class,
						(ex) -> assertThat(ex.getSQLState()).as(ex.getMessage()).isEqualTo("23503"));
		}
	}

}
