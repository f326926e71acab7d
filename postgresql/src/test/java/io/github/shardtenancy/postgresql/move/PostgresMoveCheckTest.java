package io.github.shardtenancy.postgresql.move;

import java.sql.SQLException;

import javax.sql.DataSource;

import io.github.shardtenancy.testing.move.MoveCheckScenarios;
import io.github.shardtenancy.testing.pg.ScratchPostgres;
import org.junit.jupiter.api.DisplayName;

/** {@link MoveCheckScenarios} on embedded PostgreSQL, a new server per test. */
@DisplayName("A move's pre-flight check on PostgreSQL: schema drift, key clashes on the target, rows and bytes "
		+ "to copy")
class PostgresMoveCheckTest extends MoveCheckScenarios {

	private ScratchPostgres postgres;

	@Override
	protected DataSource directory() {
		this.postgres = ScratchPostgres.start("move-check");
		return database("directory");
	}

	@Override
	protected DataSource shard(String shardId) {
		return database(shardId.replace('-', '_'));
	}

	@Override
	protected boolean estimatesBytes() {
		return true;
	}

	@Override
	protected void closeDatabases() {
		if (this.postgres != null) {
			this.postgres.close();
		}
	}

	private DataSource database(String name) {
		try {
			return this.postgres.createDatabase(name, 10);
		}
		catch (SQLException ex) {
			throw new IllegalStateException("Cannot create database " + name, ex);
		}
	}

}
