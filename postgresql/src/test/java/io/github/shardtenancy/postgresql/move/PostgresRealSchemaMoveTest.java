package io.github.shardtenancy.postgresql.move;

import java.sql.SQLException;
import java.util.concurrent.atomic.AtomicInteger;

import javax.sql.DataSource;

import io.github.shardtenancy.testing.move.RealSchemaMoveScenarios;
import io.github.shardtenancy.testing.pg.ScratchPostgres;
import org.junit.jupiter.api.DisplayName;

/** {@link RealSchemaMoveScenarios} on embedded PostgreSQL, the binary column {@code bytea}. */
@DisplayName("Online move on PostgreSQL: composite primary key, bytea values changed under writers, "
		+ "a generated column")
class PostgresRealSchemaMoveTest extends RealSchemaMoveScenarios {

	private static final AtomicInteger RUNS = new AtomicInteger();

	private ScratchPostgres postgres;

	private int run;

	@Override
	protected DataSource directory() {
		this.postgres = ScratchPostgres.start("composite-key");
		this.run = RUNS.incrementAndGet();
		return create("directory", 4);
	}

	@Override
	protected DataSource shard(String shardId) {
		return create(shardId.replace("-", "_"), 10);
	}

	@Override
	protected String generatedColumn() {
		return "BIGINT GENERATED ALWAYS AS (seq * 2) STORED";
	}

	@Override
	protected String binaryType() {
		return "bytea";
	}

	@Override
	protected void closeDatabases() {
		if (this.postgres != null) {
			this.postgres.close();
		}
	}

	private DataSource create(String database, int size) {
		try {
			return this.postgres.createDatabase(database + "_" + this.run, size);
		}
		catch (SQLException ex) {
			throw new IllegalStateException(ex);
		}
	}

}
