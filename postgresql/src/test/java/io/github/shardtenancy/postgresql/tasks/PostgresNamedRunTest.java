package io.github.shardtenancy.postgresql.tasks;

import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;

import javax.sql.DataSource;

import com.zaxxer.hikari.HikariDataSource;

import io.github.shardtenancy.testing.pg.ScratchPostgres;
import io.github.shardtenancy.testing.tasks.NamedRunScenarios;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DisplayName;

/** {@link NamedRunScenarios} on embedded PostgreSQL: one server for the class, new databases for each test. */
@DisplayName("Named runs on PostgreSQL: a lease per name, fenced late work, a completion mark that moves with the "
		+ "tenant")
class PostgresNamedRunTest extends NamedRunScenarios {

	private static final AtomicInteger DATABASES = new AtomicInteger();

	private static ScratchPostgres server;

	private final List<HikariDataSource> pools = new ArrayList<>();

	@BeforeAll
	static void startServer() {
		server = ScratchPostgres.start("named-runs");
	}

	@AfterAll
	static void stopServer() {
		if (server != null) {
			server.close();
		}
	}

	@Override
	protected DataSource directory() {
		return database("directory");
	}

	@Override
	protected DataSource shard(String shardId) {
		return database(shardId.replace('-', '_'));
	}

	@Override
	protected void closeDatabases() {
		// The test's databases stay on the server, which is stopped at the end of the class.
		this.pools.forEach(HikariDataSource::close);
	}

	private DataSource database(String prefix) {
		try {
			HikariDataSource pool = server.createDatabase(prefix + "_" + DATABASES.incrementAndGet(), 12);
			this.pools.add(pool);
			return pool;
		}
		catch (SQLException ex) {
			throw new IllegalStateException(ex);
		}
	}

}
