package io.github.shardtenancy.move;

import java.util.ArrayList;
import java.util.List;

import javax.sql.DataSource;

import com.zaxxer.hikari.HikariDataSource;
import io.github.shardtenancy.testing.h2.H2Shards;
import io.github.shardtenancy.testing.move.MoveCheckScenarios;
import org.junit.jupiter.api.DisplayName;

/** {@link MoveCheckScenarios} on in-memory H2 databases. */
@DisplayName("A move's pre-flight check on H2: schema drift, key clashes on the target, rows to copy")
class H2MoveCheckTest extends MoveCheckScenarios {

	private final List<HikariDataSource> pools = new ArrayList<>();

	@Override
	protected DataSource directory() {
		return pool("move-check-directory");
	}

	@Override
	protected DataSource shard(String shardId) {
		return pool("move-check-" + shardId);
	}

	@Override
	protected boolean estimatesBytes() {
		return false;
	}

	@Override
	protected void closeDatabases() {
		this.pools.forEach(H2Shards::shutdown);
		this.pools.clear();
	}

	private DataSource pool(String name) {
		HikariDataSource pool = H2Shards.pool(name);
		this.pools.add(pool);
		return pool;
	}

}
