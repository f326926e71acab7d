package io.github.shardtenancy.internal.jdbc;

import java.lang.reflect.Proxy;
import java.sql.CallableStatement;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.sql.Types;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;

import io.github.shardtenancy.CrossTenantStatementException;
import io.github.shardtenancy.TenantContext;
import io.github.shardtenancy.TenantSwitchedException;
import io.github.shardtenancy.internal.hibernate.TenantRoutingDataSource;
import io.github.shardtenancy.testing.ShardTenancyFixture;
import org.h2.jdbc.JdbcCallableStatement;
import org.h2.jdbc.JdbcConnection;
import org.h2.jdbc.JdbcPreparedStatement;
import org.h2.jdbc.JdbcStatement;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.catchThrowable;

/**
 * The tenant connection and its statements as JDBC wrappers, on real H2 shards, through both doors: the Hibernate
 * connection provider and the tenant-routing DataSource. What a delegating wrapper may get wrong: reflection left on
 * the path, the driver's objects leaking out where the wrapper must answer, closing, generated keys, batches, callable
 * statements.
 */
@DisplayName("Tenant connection wrappers")
class TenantConnectionWrappersTest {

	private static ShardTenancyFixture fixture;

	private static TenantRoutingDataSource dataSource;

	@BeforeAll
	static void start() {
		fixture = ShardTenancyFixture.create("tenant-wrappers", 1);
		fixture.admin(fixture.router()).create("acme", "shard-1");
		fixture.admin(fixture.router()).create("globex", "shard-1");
		dataSource = new TenantRoutingDataSource(fixture.provider());
	}

	@AfterAll
	static void stop() {
		fixture.close();
	}

	@AfterEach
	void nothingLeftBehind() {
		assertThat(ConnectionGuard.heldTenant()).isNull();
		assertThat(fixture.activeConnections()).isZero();
	}

	@Test
	@DisplayName("no dynamic proxy: the connection and every kind of statement are plain classes, "
			+ "whose connection is the tenant connection")
	void noDynamicProxy() throws Exception {
		Connection hibernate = fixture.provider().getConnection("acme");
		try {
			assertPlainWrappers(hibernate);
		}
		finally {
			fixture.provider().releaseConnection("acme", hibernate);
		}
		try (TenantContext.Scope acme = TenantContext.bind("acme"); Connection c = dataSource.getConnection()) {
			assertPlainWrappers(c);
		}
	}

	private static void assertPlainWrappers(Connection c) throws SQLException {
		assertThat(Proxy.isProxyClass(c.getClass())).isFalse();
		assertThat(c).isInstanceOf(FencedConnection.class);
		List<Statement> statements = new ArrayList<>();
		try {
			statements.add(c.createStatement());
			statements.add(c.createStatement(ResultSet.TYPE_FORWARD_ONLY, ResultSet.CONCUR_READ_ONLY));
			statements.add(c.prepareStatement("SELECT 1"));
			statements
				.add(c.prepareStatement("INSERT INTO plain_table (id) VALUES (?)", Statement.RETURN_GENERATED_KEYS));
			statements.add(c.prepareStatement("INSERT INTO plain_table (id) VALUES (?)", new String[] { "ID" }));
			statements.add(c.prepareCall("CALL 1"));
			for (Statement s : statements) {
				assertThat(Proxy.isProxyClass(s.getClass())).as("%s", s).isFalse();
				assertThat(s).isInstanceOf(FencedStatement.class);
				assertThat(s.getConnection()).as("%s", s).isSameAs(c);
			}
			assertThat(statements.get(2)).isInstanceOf(PreparedStatement.class);
			assertThat(statements.get(5)).isInstanceOf(CallableStatement.class);
		}
		finally {
			for (Statement s : statements) {
				s.close();
			}
		}
	}

	@Test
	@DisplayName("unwrap answers with the wrapper for JDBC interfaces, the driver's own object for its classes")
	void unwrap() throws Exception {
		try (TenantContext.Scope acme = TenantContext.bind("acme"); Connection c = dataSource.getConnection()) {
			assertThat(c.unwrap(Connection.class)).isSameAs(c);
			assertThat(c.isWrapperFor(Connection.class)).isTrue();
			assertThat(c.isWrapperFor(JdbcConnection.class)).isTrue();
			assertThat(c.unwrap(JdbcConnection.class)).isInstanceOf(JdbcConnection.class).isNotSameAs(c);
			assertThat(c.isWrapperFor(UUID.class)).isFalse();
			assertThatThrownBy(() -> c.unwrap(UUID.class)).isInstanceOf(SQLException.class);
			try (PreparedStatement ps = c.prepareStatement("SELECT 1"); Statement s = c.createStatement();
					CallableStatement cs = c.prepareCall("CALL 1")) {
				assertThat(ps.unwrap(PreparedStatement.class)).isSameAs(ps);
				assertThat(ps.isWrapperFor(PreparedStatement.class)).isTrue();
				assertThat(ps.isWrapperFor(JdbcPreparedStatement.class)).isTrue();
				assertThat(ps.unwrap(JdbcPreparedStatement.class)).isInstanceOf(JdbcPreparedStatement.class);
				assertThat(s.unwrap(Statement.class)).isSameAs(s);
				assertThat(s.unwrap(JdbcStatement.class)).isInstanceOf(JdbcStatement.class).isNotSameAs(s);
				assertThat(cs.unwrap(CallableStatement.class)).isSameAs(cs);
				assertThat(cs.unwrap(JdbcCallableStatement.class)).isInstanceOf(JdbcCallableStatement.class);
			}
		}
	}

	@Test
	@DisplayName("closing a statement twice is harmless; closing a DataSource connection twice releases it once")
	void closingTwice() throws Exception {
		try (TenantContext.Scope acme = TenantContext.bind("acme")) {
			Connection c = dataSource.getConnection();
			PreparedStatement ps = c.prepareStatement("SELECT 1");
			Statement s = c.createStatement();
			ps.close();
			ps.close();
			s.close();
			s.close();
			assertThat(ps.isClosed()).isTrue();
			assertThat(s.isClosed()).isTrue();
			assertThat(c.isClosed()).isFalse();
			assertThat(ConnectionGuard.heldTenant()).isEqualTo("acme");
			c.close();
			assertThat(c.isClosed()).isTrue();
			assertThat(ConnectionGuard.heldTenant()).isNull();
			assertThat(fixture.activeConnections()).isZero();
			c.close();
			assertThat(fixture.activeConnections()).isZero();
			// The guard drops a tenant connection that was closed without being released.
			Connection leaked = fixture.provider().getConnection("acme");
			TenantConnection.unwrapPooled(leaked).close();
			assertThat(leaked.isClosed()).isTrue();
			assertThat(ConnectionGuard.heldTenant()).isNull();
		}
	}

	@Test
	@DisplayName("generated keys come back through a prepared statement and through a plain statement")
	void generatedKeys() throws Exception {
		try (TenantContext.Scope acme = TenantContext.bind("acme"); Connection c = dataSource.getConnection()) {
			try (Statement s = c.createStatement()) {
				s.execute("CREATE LOCAL TEMPORARY TABLE keyed (id INT AUTO_INCREMENT PRIMARY KEY, label VARCHAR(20))");
			}
			try (PreparedStatement ps = c.prepareStatement("INSERT INTO keyed (label) VALUES (?)",
					Statement.RETURN_GENERATED_KEYS)) {
				ps.setString(1, "first");
				assertThat(ps.executeUpdate()).isOne();
				try (ResultSet keys = ps.getGeneratedKeys()) {
					assertThat(keys.next()).isTrue();
					assertThat(keys.getInt(1)).isEqualTo(1);
				}
			}
			try (Statement s = c.createStatement()) {
				assertThat(s.executeUpdate("INSERT INTO keyed (label) VALUES ('second')", new String[] { "ID" }))
					.isOne();
				try (ResultSet keys = s.getGeneratedKeys()) {
					assertThat(keys.next()).isTrue();
					assertThat(keys.getInt(1)).isEqualTo(2);
				}
			}
		}
	}

	@Test
	@DisplayName("batches run (auto-committed on the DataSource); a TRUNCATE added to a batch is refused at once")
	void batches() throws Exception {
		long before = fixture.rows("shard-1", "note", "globex");
		try (TenantContext.Scope globex = TenantContext.bind("globex"); Connection c = dataSource.getConnection()) {
			try (PreparedStatement ps = c.prepareStatement("INSERT INTO note (id, tenant_id, body) VALUES (?, ?, ?)")) {
				for (int i = 0; i < 3; i++) {
					ps.setObject(1, UUID.randomUUID());
					ps.setString(2, "globex");
					ps.setString(3, "batched " + i);
					ps.addBatch();
				}
				assertThat(ps.executeBatch()).containsExactly(1, 1, 1);
			}
			// Committed before the connection is released: another connection sees the rows.
			assertThat(fixture.rows("shard-1", "note", "globex")).isEqualTo(before + 3);
			try (Statement s = c.createStatement()) {
				s.addBatch("UPDATE note SET body = 'plain batch' WHERE tenant_id = 'globex'");
				assertThatThrownBy(() -> s.addBatch("TRUNCATE TABLE note"))
					.isInstanceOf(CrossTenantStatementException.class);
				assertThat(s.executeLargeBatch()).containsExactly(before + 3);
			}
		}
		assertThat(fixture.rows("shard-1", "note", "globex")).isEqualTo(before + 3);
	}

	@Test
	@DisplayName("H2's RUNSCRIPT and SCRIPT are refused on a tenant's connection before they reach the shard: the script "
			+ "that would delete another tenant's rows does not run, no dump is written")
	void scriptCommandsRefused() throws Exception {
		java.nio.file.Path dir = java.nio.file.Files.createTempDirectory("tenant-wrappers-script");
		java.nio.file.Path script = dir.resolve("delete.sql");
		java.nio.file.Files.writeString(script, "DELETE FROM note WHERE tenant_id = 'globex';");
		java.nio.file.Path dump = dir.resolve("dump.sql");
		try (TenantContext.Scope globex = TenantContext.bind("globex"); Connection c = dataSource.getConnection()) {
			ShardTenancyFixture.insertNote(c, "globex", "kept");
		}
		long before = fixture.rows("shard-1", "note", "globex");
		try (TenantContext.Scope acme = TenantContext.bind("acme"); Connection c = dataSource.getConnection();
				Statement s = c.createStatement()) {
			assertThatThrownBy(() -> s.execute("RUNSCRIPT FROM '" + script + "'"))
				.isInstanceOf(CrossTenantStatementException.class)
				.hasMessageContaining("RUNSCRIPT");
			assertThatThrownBy(() -> c.prepareStatement("SCRIPT TO '" + dump + "'"))
				.isInstanceOf(CrossTenantStatementException.class);
			assertThatThrownBy(() -> s.executeQuery("script"))
				.isInstanceOf(CrossTenantStatementException.class);
		}
		assertThat(fixture.rows("shard-1", "note", "globex")).isEqualTo(before).isPositive();
		assertThat(dump).doesNotExist();
	}

	@Test
	@DisplayName("a callable statement binds, runs and reads unshifted; TRUNCATE and another tenant are refused")
	void callableStatements() throws Exception {
		try (TenantContext.Scope acme = TenantContext.bind("acme"); Connection c = dataSource.getConnection()) {
			try (CallableStatement cs = c.prepareCall("CALL ? * 2")) {
				cs.setInt(1, 21);
				assertThat(cs.execute()).isTrue();
				try (ResultSet rs = cs.getResultSet()) {
					assertThat(rs.next()).isTrue();
					assertThat(rs.getInt(1)).isEqualTo(42);
				}
				cs.setNull(1, Types.INTEGER);
				try (ResultSet rs = cs.executeQuery()) {
					assertThat(rs.next()).isTrue();
					assertThat(rs.getObject(1)).isNull();
				}
			}
			assertThatThrownBy(() -> c.prepareCall("TRUNCATE TABLE note"))
				.isInstanceOf(CrossTenantStatementException.class);
		}
		// Another thread, bound to another tenant, given acme's connection.
		Connection c = fixture.provider().getConnection("acme");
		try {
			List<Throwable> refusals = CompletableFuture.supplyAsync(() -> {
				TenantContext.Scope globex = TenantContext.bind("globex");
				try (globex) {
					return List.of(catchThrowable(() -> c.prepareCall("CALL 1")), catchThrowable(c::createStatement),
							catchThrowable(() -> c.prepareStatement("SELECT 1")));
				}
			}).join();
			assertThat(refusals).hasSize(3)
				.allSatisfy(refused -> assertThat(refused).isInstanceOf(TenantSwitchedException.class));
		}
		finally {
			fixture.provider().releaseConnection("acme", c);
		}
	}

}
