package io.github.shardtenancy.move;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;

import javax.sql.DataSource;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import io.github.shardtenancy.testing.move.RealSchemaMoveScenarios;
import org.junit.jupiter.api.DisplayName;

/** {@link RealSchemaMoveScenarios} on in-memory H2 databases, the binary column {@code VARBINARY}. */
@DisplayName("Online move on H2: composite primary key, VARBINARY values changed under writers, "
		+ "a generated column")
class H2RealSchemaMoveTest extends RealSchemaMoveScenarios {

	private final String name = "composite-" + UUID.randomUUID().toString().substring(0, 8);

	private final List<HikariDataSource> pools = new ArrayList<>();

	private final List<String> urls = new ArrayList<>();

	@Override
	protected DataSource directory() {
		return pool("directory", 4);
	}

	@Override
	protected DataSource shard(String shardId) {
		return pool(shardId, 10);
	}

	@Override
	protected String generatedColumn() {
		return "BIGINT GENERATED ALWAYS AS (seq * 2)";
	}

	@Override
	protected String binaryType() {
		return "VARBINARY(64)";
	}

	@Override
	protected void closeDatabases() {
		this.pools.forEach(HikariDataSource::close);
		for (String url : this.urls) {
			try (Connection c = DriverManager.getConnection(url); Statement s = c.createStatement()) {
				s.execute("SHUTDOWN");
			}
			catch (SQLException ex) {
				// already gone
			}
		}
	}

	private DataSource pool(String database, int size) {
		String url = "jdbc:h2:mem:" + this.name + "-" + database + ";DB_CLOSE_DELAY=-1;LOCK_TIMEOUT=10000";
		HikariConfig config = new HikariConfig();
		config.setJdbcUrl(url);
		config.setMaximumPoolSize(size);
		HikariDataSource pool = new HikariDataSource(config);
		this.pools.add(pool);
		this.urls.add(url);
		return pool;
	}

}
