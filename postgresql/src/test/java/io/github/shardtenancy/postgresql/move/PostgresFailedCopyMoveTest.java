package io.github.shardtenancy.postgresql.move;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.regex.Pattern;

import javax.sql.DataSource;

import com.zaxxer.hikari.HikariDataSource;
import io.github.shardtenancy.DirectoryEntry;
import io.github.shardtenancy.MoveException;
import io.github.shardtenancy.MoveResult;
import io.github.shardtenancy.MoveSettings;
import io.github.shardtenancy.MoveStep;
import io.github.shardtenancy.ShardTenancy;
import io.github.shardtenancy.TenantContext;
import io.github.shardtenancy.TenantState;
import io.github.shardtenancy.TenantTable;
import io.github.shardtenancy.liquibase.ShardTenancyMigrations;
import io.github.shardtenancy.testing.pg.ScratchPostgres;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.fail;

/**
 * Online moves on PostgreSQL whose bulk copy ({@code COPY} out of the source, {@code COPY} into the target) fails
 * midway, after batches were committed on the target (issue 27, point 5): a row of the tenant that a {@code CHECK}
 * constraint present only on the target refuses, and the source's backend terminated with
 * {@code pg_terminate_backend} while it still streams rows. The move fails with a {@link MoveException} naming the
 * copy, the table and PostgreSQL's own message (pgjdbc's, for a backend gone without one); it is aborted, so the
 * tenant is ACTIVE on its source with capture off and no row of it is on the target; neither shard's pool hands out a
 * connection the copy used (a connection a failed or cancelled {@code COPY} left behind must never be reused): every
 * connection of both pools, borrowed at once, answers and none has the backend of the copy's connections. Once the
 * cause is fixed the same tenant moves.
 *
 * <p>The target's check constraint calls {@code copy_probe}, which for the row with a negative {@code qty} (and only
 * for it) records the backend ids of the copy's two connections in sequences (which a rollback does not undo) and
 * then either refuses the row ({@code qty = -1}) or terminates the source's backend ({@code qty = -2}).
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@DisplayName("Online move on PostgreSQL whose COPY fails midway: aborted, nothing on the target, the copy's "
		+ "connections never reused")
class PostgresFailedCopyMoveTest {

	private static final String TENANT = "acme";

	private static final AtomicInteger RUNS = new AtomicInteger();

	private ScratchPostgres postgres;

	private ShardTenancy tenancy;

	private HikariDataSource shard1;

	private HikariDataSource shard2;

	@BeforeAll
	void server() {
		this.postgres = ScratchPostgres.start("failed-copy");
	}

	@AfterEach
	void stop() {
		if (this.tenancy != null) {
			this.tenancy.close();
			this.tenancy = null;
		}
	}

	/** Stops the server, and with it the pools of every run. */
	@AfterAll
	void stopServer() {
		if (this.postgres != null) {
			this.postgres.close();
		}
	}

	@Test
	@DisplayName("a row the target's CHECK constraint refuses after 9 committed batches: MoveException naming the "
			+ "copy, the table and PostgreSQL's message; aborted; the copy's connections evicted; moves once fixed")
	void checkConstraintOnlyOnTheTarget() throws Exception {
		start();
		insert(1, 1000, 950, -1);

		assertCopyFailsWith(Pattern.quote("ERROR: new row for relation \"item\" violates check constraint "
				+ "\"item_qty_allowed\""));

		assertAbortedAndNotReused();
		fixAndMove(1000);
	}

	@Test
	@DisplayName("the source's backend terminated while it streams the COPY: MoveException naming the copy, the "
			+ "table and the connection's failure; aborted; the copy's connections evicted; moves again")
	void sourceBackendTerminated() throws Exception {
		start();
		// About 20 MB of rows: the source still has rows to send (more than the sockets hold) when it is terminated.
		insert(1, 10_000, 100, -2);

		// The server's FATAL message when it could still send it, else (its socket full of rows) pgjdbc's.
		assertCopyFailsWith("FATAL: terminating connection due to administrator command|Database connection failed "
				+ "when reading from copy");

		assertAbortedAndNotReused();
		fixAndMove(10_000);
	}

	/**
	 * Moves the tenant, which must fail in the copy with a message naming the step, the table and the failure
	 * ({@code failure}, a regular expression), and be aborted.
	 */
	private void assertCopyFailsWith(String failure) {
		assertThatThrownBy(() -> this.tenancy.mover().moveAndWait(TENANT, "shard-2", settings()))
			.isInstanceOf(MoveException.class)
			.hasMessageContaining("failed in its copy step, after step MARKED")
			.hasMessageContaining("copy of table item from shard 'shard-1' to shard 'shard-2' failed: ")
			.hasMessageMatching("(?s).*(" + failure + ").*")
			.hasMessageContaining("the move was aborted and the tenant is ACTIVE on 'shard-1'")
			.hasMessageNotContaining("null");
	}

	private static MoveSettings settings() {
		return MoveSettings.defaults().withBatchSize(100);
	}

	/** The tenant is back on its source, nothing of it on the target, and the pools hand out fresh connections. */
	private void assertAbortedAndNotReused() throws SQLException {
		DirectoryEntry entry = this.tenancy.admin().find(TENANT).orElseThrow();
		assertThat(entry.state()).isEqualTo(TenantState.ACTIVE);
		assertThat(entry.shardId()).isEqualTo("shard-1");
		assertThat(entry.targetShardId()).isNull();
		assertThat(this.tenancy.mover().findActive(TENANT)).isEmpty();
		assertThat(count(this.shard2, "SELECT COUNT(*) FROM item WHERE tenant_id = '" + TENANT + "'"))
			.as("rows of the tenant on the target").isZero();
		assertThat(count(this.shard1, "SELECT COUNT(*) FROM shard_capture WHERE tenant_id = '" + TENANT + "'"))
			.as("change capture of the tenant on the source").isZero();

		int sourcePid = recordedPid("copy_source_pid");
		int targetPid = recordedPid("copy_target_pid");
		assertThat(borrowEveryConnection(this.shard1)).as("backends of the source's pool (the copy's: %d)", sourcePid)
			.doesNotContain(sourcePid);
		assertThat(borrowEveryConnection(this.shard2)).as("backends of the target's pool (the copy's: %d)", targetPid)
			.doesNotContain(targetPid);
	}

	/** Makes the refused row acceptable on the source, then moves the tenant: DONE, every row on the target. */
	private void fixAndMove(long rows) throws SQLException {
		try (TenantContext.Scope scope = TenantContext.bind(TENANT);
				Connection c = this.tenancy.dataSource().getConnection(); Statement s = c.createStatement()) {
			assertThat(s.executeUpdate("UPDATE item SET qty = 1 WHERE qty < 0")).isEqualTo(1);
		}
		MoveResult result = this.tenancy.mover().moveAndWait(TENANT, "shard-2", settings());
		assertThat(result.step()).isEqualTo(MoveStep.DONE);
		assertThat(this.tenancy.admin().find(TENANT).orElseThrow().shardId()).isEqualTo("shard-2");
		assertThat(count(this.shard2, "SELECT COUNT(*) FROM item WHERE tenant_id = '" + TENANT + "'")).isEqualTo(rows);
		assertThat(count(this.shard1, "SELECT COUNT(*) FROM item WHERE tenant_id = '" + TENANT + "'")).isZero();
	}

	/**
	 * Borrows every connection the pool may hold at once, checks that each answers {@code SELECT 1}, and returns
	 * their backends' process ids.
	 */
	private static Set<Integer> borrowEveryConnection(HikariDataSource pool) throws SQLException {
		List<Connection> held = new ArrayList<>();
		Set<Integer> pids = new HashSet<>();
		try {
			for (int i = 0; i < pool.getMaximumPoolSize(); i++) {
				Connection c = pool.getConnection();
				held.add(c);
				try (Statement s = c.createStatement();
						ResultSet rs = s.executeQuery("SELECT 1, pg_backend_pid()")) {
					assertThat(rs.next()).isTrue();
					assertThat(rs.getInt(1)).isEqualTo(1);
					pids.add(rs.getInt(2));
				}
				catch (SQLException ex) {
					fail("connection " + (i + 1) + " of pool " + pool.getPoolName() + " does not answer SELECT 1: "
							+ ex.getMessage(), ex);
				}
			}
		}
		finally {
			for (Connection c : held) {
				c.close();
			}
		}
		assertThat(pids).as("distinct backends of pool %s", pool.getPoolName()).hasSize(pool.getMaximumPoolSize());
		return pids;
	}

	/** @return the backend id {@code copy_probe} recorded in a sequence of the target */
	private int recordedPid(String sequence) throws SQLException {
		try (Connection c = this.shard2.getConnection(); Statement s = c.createStatement();
				ResultSet rs = s.executeQuery("SELECT last_value, is_called FROM " + sequence)) {
			assertThat(rs.next()).isTrue();
			assertThat(rs.getBoolean(2)).as("%s set by copy_probe during the copy", sequence).isTrue();
			return rs.getInt(1);
		}
	}

	private static long count(HikariDataSource shard, String sql) throws SQLException {
		try (Connection c = shard.getConnection(); Statement s = c.createStatement();
				ResultSet rs = s.executeQuery(sql)) {
			rs.next();
			return rs.getLong(1);
		}
	}

	/**
	 * Inserts rows {@code from..to} of the tenant on its shard, through the tenancy, with a 2,000-character note each;
	 * the row {@code probe} gets {@code qty} (negative: the target's {@code copy_probe} acts on it).
	 */
	private void insert(int from, int to, int probe, int qty) throws SQLException {
		try (TenantContext.Scope scope = TenantContext.bind(TENANT);
				Connection c = this.tenancy.dataSource().getConnection();
				PreparedStatement ps = c.prepareStatement("INSERT INTO item (tenant_id, id, qty, note) SELECT ?, n, "
						+ "CASE WHEN n = ? THEN ? ELSE n END, repeat('x', 2000) FROM generate_series(?, ?) n")) {
			ps.setString(1, TENANT);
			ps.setInt(2, probe);
			ps.setInt(3, qty);
			ps.setInt(4, from);
			ps.setInt(5, to);
			assertThat(ps.executeUpdate()).isEqualTo(to - from + 1);
		}
	}

	/**
	 * Creates the databases of a run (the target with {@code copy_probe} in a check constraint of {@code item}) and
	 * starts the tenancy, as the superuser (so that the copy runs with {@code session_replication_role = replica},
	 * which keeps check constraints).
	 */
	private void start() throws SQLException {
		int run = RUNS.incrementAndGet();
		HikariDataSource directory = this.postgres.createDatabase("directory_" + run, 4);
		ShardTenancyMigrations.migrateDirectory(directory);
		String sourceDatabase = "shard1_" + run;
		List<HikariDataSource> shards = List.of(this.postgres.createDatabase(sourceDatabase, 6),
				this.postgres.createDatabase("shard2_" + run, 6));
		for (int i = 0; i < shards.size(); i++) {
			ShardTenancyMigrations.migrateShard(shards.get(i), "shard-" + (i + 1), List.of());
			try (Connection c = shards.get(i).getConnection(); Statement s = c.createStatement()) {
				s.execute("CREATE TABLE item (tenant_id VARCHAR(64) NOT NULL, id BIGINT NOT NULL, qty INT NOT NULL, "
						+ "note TEXT, PRIMARY KEY (tenant_id, id))");
			}
		}
		try (Connection c = shards.get(1).getConnection(); Statement s = c.createStatement()) {
			s.execute("CREATE SEQUENCE copy_source_pid");
			s.execute("CREATE SEQUENCE copy_target_pid");
			s.execute("CREATE FUNCTION copy_probe(qty INT) RETURNS boolean LANGUAGE plpgsql AS $$ "
					+ "DECLARE source_pid INT; "
					+ "BEGIN "
					+ "IF qty >= 0 THEN RETURN true; END IF; "
					+ "SELECT pid INTO STRICT source_pid FROM pg_stat_activity WHERE datname = '" + sourceDatabase
					+ "' AND query LIKE 'COPY (SELECT%'; "
					+ "PERFORM setval('copy_source_pid', source_pid); "
					+ "PERFORM setval('copy_target_pid', pg_backend_pid()); "
					+ "IF qty = -1 THEN RETURN false; END IF; "
					+ "PERFORM pg_terminate_backend(source_pid); "
					+ "RETURN true; "
					+ "END $$");
			s.execute("ALTER TABLE item ADD CONSTRAINT item_qty_allowed CHECK (copy_probe(qty))");
		}
		this.shard1 = shards.get(0);
		this.shard2 = shards.get(1);
		this.tenancy = ShardTenancy.builder()
			.directory((DataSource) directory)
			.shard("shard-1", (DataSource) this.shard1)
			.shard("shard-2", (DataSource) this.shard2)
			.tenantTables(List.of(new TenantTable("item", "tenant_id")))
			.actor("failed-copy@test")
			.build();
		this.tenancy.start();
		this.tenancy.admin().create(TENANT, "shard-1");
	}

}
