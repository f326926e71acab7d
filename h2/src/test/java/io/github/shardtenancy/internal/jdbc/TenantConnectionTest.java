package io.github.shardtenancy.internal.jdbc;

import io.github.shardtenancy.internal.hibernate.TenantRoutingDataSource;
import io.github.shardtenancy.retry.CommittedWork;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;

import io.github.shardtenancy.TenantContext;
import io.github.shardtenancy.retry.CommittedWork;
import io.github.shardtenancy.testing.ShardTenancyFixture;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The tenant connection's reading of statements (which act on whole tables, which only read) and its record of
 * committed writes, on real H2 shards.
 */
class TenantConnectionTest {

	private static ShardTenancyFixture fixture;

	@BeforeAll
	static void start() {
		fixture = ShardTenancyFixture.create("tenant-connection", 1);
		fixture.admin(fixture.router()).create("acme", "shard-1");
	}

	@AfterAll
	static void stop() {
		fixture.close();
	}

	@ParameterizedTest
	@ValueSource(strings = { "TRUNCATE TABLE note", "truncate note", "  -- empty it\n TRUNCATE note", "/* x */ALTER TABLE note ADD c INT",
			"drop table note", "CREATE INDEX i ON note (body)", "CREATE TABLE t (n INT)", "GRANT SELECT ON note TO PUBLIC",
			"REVOKE ALL ON note FROM PUBLIC", "COMMENT ON TABLE note IS 'x'", "(TRUNCATE note)",
			"RUNSCRIPT FROM './x.sql'", "runscript from 'x.sql' FROM_1X", "SCRIPT TO './dump.sql'", "script",
			"BACKUP TO 'backup.zip'" })
	@DisplayName("TRUNCATE, DDL and H2's script commands act on whole tables")
	void wholeTableStatements(String sql) {
		assertThat(StatementClassifier.actsOnWholeTables(sql)).isTrue();
	}

	@ParameterizedTest
	@ValueSource(strings = { "SELECT * FROM note", "insert into note values (1)", "UPDATE note SET body = 'drop'",
			"DELETE FROM note", "CREATE LOCAL TEMPORARY TABLE t (n INT)", "create temporary table t (n int)",
			"CREATE TEMP TABLE t (n int)", "CREATE GLOBAL TEMPORARY TABLE t (n INT)", "WITH x AS (SELECT 1) SELECT * FROM x",
			"SELECT script FROM note", "UPDATE note SET body = 'SCRIPT'",
			"", "   ", "-- only a comment" })
	@DisplayName("queries, DML and temporary tables do not")
	void otherStatements(String sql) {
		assertThat(StatementClassifier.actsOnWholeTables(sql)).isFalse();
	}

	@Test
	@DisplayName("only SELECT and SHOW count as reads")
	void reads() {
		assertThat(StatementClassifier.isRead(" /* c */ select 1")).isTrue();
		assertThat(StatementClassifier.isRead("SHOW TABLES")).isTrue();
		assertThat(StatementClassifier.isRead("WITH x AS (DELETE FROM note RETURNING *) SELECT * FROM x")).isFalse();
		assertThat(StatementClassifier.isRead("INSERT INTO note VALUES (1)")).isFalse();
	}

	@Test
	@DisplayName("a connection handed to Hibernate counts the rows of committed updates, none of queries or of a "
			+ "rolled-back transaction, and its transactions")
	void hibernateConnectionCountsCommittedRows() throws Exception {
		fixture.admin(fixture.router()).create("hooli", "shard-1");
		Connection c = fixture.provider().getConnection("hooli");
		try {
			c.setAutoCommit(false);
			ShardTenancyFixture.insertNote(c, "hooli", "one");
			ShardTenancyFixture.insertNote(c, "hooli", "two");
			int updated;
			try (PreparedStatement ps = c.prepareStatement("UPDATE note SET body = body WHERE tenant_id = ?")) {
				ps.setString(1, "hooli");
				updated = ps.executeUpdate();
			}
			assertThat(updated).isGreaterThanOrEqualTo(2);
			try (PreparedStatement ps = c.prepareStatement("SELECT count(*) FROM note"); ResultSet rs = ps.executeQuery()) {
				rs.next();
			}
			assertThat(TenantConnection.usage(c).rowsWritten()).as("nothing committed yet").isZero();
			c.commit();
			assertThat(TenantConnection.usage(c).rowsWritten()).isEqualTo(2 + updated);
			ShardTenancyFixture.insertNote(c, "hooli", "rolled back");
			c.rollback();
			TenantConnection.Usage usage = TenantConnection.usage(c);
			assertThat(usage.rowsWritten()).isEqualTo(2 + updated);
			assertThat(usage.transactions()).isEqualTo(2);
			assertThat(usage.tenantId()).isEqualTo("hooli");
		}
		finally {
			fixture.provider().releaseConnection("hooli", c);
		}
	}

	@Test
	@DisplayName("auto-commit writes on the routing DataSource are recorded as committed work, asked-for commits once work goes on, reads and rollbacks never")
	void committedWritesAreRecorded() throws Exception {
		TenantRoutingDataSource dataSource = new TenantRoutingDataSource(fixture.provider());
		try (CommittedWork.Watch watch = CommittedWork.watch(); TenantContext.Scope acme = TenantContext.bind("acme")) {
			try (Connection c = dataSource.getConnection()) {
				try (PreparedStatement ps = c.prepareStatement("SELECT count(*) FROM note"); ResultSet rs = ps.executeQuery()) {
					rs.next();
				}
				assertThat(watch.committed()).isEmpty();

				ShardTenancyFixture.insertNote(c, "acme", "recorded");
				assertThat(watch.committed()).singleElement().asString().contains("'acme'").contains("shard-1")
					.contains("INSERT");

				c.setAutoCommit(false);
				ShardTenancyFixture.insertNote(c, "acme", "rolled back");
				c.rollback();
				assertThat(watch.committed()).hasSize(1);
				ShardTenancyFixture.insertNote(c, "acme", "committed");
				c.commit();
				// A commit the code asked for may be the attempt's own transaction: it counts once more work begins.
				assertThat(watch.committed()).hasSize(1);
				try (PreparedStatement ps = c.prepareStatement("SELECT count(*) FROM note"); ResultSet rs = ps.executeQuery()) {
					rs.next();
				}
				assertThat(watch.committed()).hasSize(2);
			}
		}
		assertThat(fixture.rows("shard-1", "note", "acme")).isEqualTo(2);
	}

}
