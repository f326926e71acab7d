package io.github.shardtenancy.tasks;

import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;

import javax.sql.DataSource;

import com.zaxxer.hikari.HikariDataSource;
import io.github.shardtenancy.testing.h2.H2Shards;
import io.github.shardtenancy.testing.tasks.NamedRunScenarios;
import org.junit.jupiter.api.DisplayName;

/** {@link NamedRunScenarios} on in-memory H2 databases. */
@DisplayName("Named runs on H2: a lease per name, fenced late work, a completion mark that moves with the tenant")
class H2NamedRunTest extends NamedRunScenarios {

	private final List<HikariDataSource> pools = new ArrayList<>();

	@Override
	protected DataSource directory() {
		return kept(H2Shards.pool("runs-directory"));
	}

	@Override
	protected DataSource shard(String shardId) {
		return kept(H2Shards.pool("runs-" + shardId));
	}

	@Override
	protected void closeDatabases() {
		for (HikariDataSource pool : this.pools) {
			try (Connection c = pool.getConnection(); Statement s = c.createStatement()) {
				s.execute("SHUTDOWN");
			}
			catch (SQLException ex) {
				// already gone
			}
			pool.close();
		}
	}

	private DataSource kept(HikariDataSource pool) {
		this.pools.add(pool);
		return pool;
	}

}
