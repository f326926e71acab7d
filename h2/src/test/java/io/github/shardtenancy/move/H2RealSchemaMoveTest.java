package io.github.shardtenancy.move;

import javax.sql.DataSource;

import io.github.shardtenancy.testing.H2MemoryDatabases;
import io.github.shardtenancy.testing.move.RealSchemaMoveScenarios;
import org.junit.jupiter.api.DisplayName;

/** {@link RealSchemaMoveScenarios} on in-memory H2 databases, the binary column {@code VARBINARY}. */
@DisplayName("Online move on H2: composite primary key, VARBINARY values changed under writers, "
		+ "a generated column")
class H2RealSchemaMoveTest extends RealSchemaMoveScenarios {

	private final H2MemoryDatabases databases = new H2MemoryDatabases("composite");

	@Override
	protected DataSource directory() {
		return this.databases.pool("directory", 4);
	}

	@Override
	protected DataSource shard(String shardId) {
		return this.databases.pool(shardId, 10);
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
		this.databases.close();
	}

}
