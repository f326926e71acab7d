package io.github.shardtenancy.liquibase;

/**
 * The library's schema in a database was installed by the other migration tool (Liquibase or Flyway). Running both
 * would install the schema twice, so the migration refuses before it changes anything. A database stays with the
 * tool that first migrated it (see docs/usage.md, section "Flyway").
 */
public class MigrationToolConflictException extends IllegalStateException {

	private final String database;

	/**
	 * @param database what the database is, e.g. {@code "shard 'shard-1'"} or {@code "directory"}
	 * @param message what was found and the remedy
	 */
	public MigrationToolConflictException(String database, String message) {
		super(message);
		this.database = database;
	}

	/** @return what the database is, e.g. {@code "shard 'shard-1'"}; never {@code null} */
	public String database() {
		return this.database;
	}

}
