package io.github.shardtenancy.move;

import java.util.List;

import javax.sql.DataSource;

import io.github.shardtenancy.testing.H2MemoryDatabases;
import io.github.shardtenancy.testing.move.SchemaFeaturesMoveScenarios;
import org.junit.jupiter.api.DisplayName;

/**
 * {@link SchemaFeaturesMoveScenarios} on in-memory H2 databases: {@code event} a plain table (H2 has no partitioning),
 * the note's foreign key checked at once (H2 has no deferrable constraints), no exclusion constraint (H2 has none).
 */
@DisplayName("Online move on H2: identity columns, a key column changed by updates, check constraint, cascading "
		+ "foreign keys")
class H2SchemaFeaturesMoveTest extends SchemaFeaturesMoveScenarios {

	private final H2MemoryDatabases databases = new H2MemoryDatabases("features");

	@Override
	protected DataSource createDatabase(String name) {
		return this.databases.pool(name, 10);
	}

	@Override
	protected List<String> eventTable() {
		return List.of("CREATE TABLE event (tenant_id VARCHAR(64) NOT NULL, id BIGINT NOT NULL, kind CHAR(1) NOT NULL, "
				+ "qty INT NOT NULL CHECK (qty >= 0), payload VARCHAR(64) NOT NULL, "
				+ "PRIMARY KEY (tenant_id, id, kind))");
	}

	@Override
	protected String noteKeyDeferral() {
		return "";
	}

	@Override
	protected String bookingConstraint() {
		return "";
	}

	@Override
	protected void closeDatabases() {
		this.databases.close();
	}

}
