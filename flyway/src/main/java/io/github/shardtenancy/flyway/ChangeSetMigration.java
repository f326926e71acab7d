package io.github.shardtenancy.flyway;

import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.Statement;
import java.util.List;
import java.util.zip.CRC32;

import org.flywaydb.core.api.MigrationVersion;
import org.flywaydb.core.api.migration.Context;
import org.flywaydb.core.api.migration.JavaMigration;
import org.jspecify.annotations.Nullable;

/**
 * A Flyway migration that runs change sets of the library's Liquibase changelogs ({@link ChangeSets}): versioned for
 * the change sets Liquibase runs once, repeatable (no version) for those it runs again when they change
 * ({@code runOnChange}). Its checksum is computed from the change sets' text and files, so Flyway validates a
 * versioned one and re-runs a repeatable one exactly when its source changes. Immutable and thread-safe.
 */
final class ChangeSetMigration implements JavaMigration {

	/** A change set: the changelog's file name and the change set's id. */
	record ChangeSet(String changelog, String id) {
	}

	private final @Nullable MigrationVersion version;

	private final String description;

	private final List<ChangeSet> changeSets;

	private ChangeSetMigration(@Nullable MigrationVersion version, String description, List<ChangeSet> changeSets) {
		this.version = version;
		this.description = description;
		this.changeSets = List.copyOf(changeSets);
	}

	static ChangeSetMigration versioned(String version, String description, String changelog, String id) {
		return new ChangeSetMigration(MigrationVersion.fromVersion(version), description,
				List.of(new ChangeSet(changelog, id)));
	}

	static ChangeSetMigration repeatable(String description, ChangeSet... changeSets) {
		return new ChangeSetMigration(null, description, List.of(changeSets));
	}

	List<ChangeSet> changeSets() {
		return this.changeSets;
	}

	@Override
	public @Nullable MigrationVersion getVersion() {
		return this.version;
	}

	@Override
	public String getDescription() {
		return this.description;
	}

	@Override
	public Integer getChecksum() {
		CRC32 crc = new CRC32();
		for (ChangeSet changeSet : this.changeSets) {
			crc.update(ChangeSets.source(changeSet.changelog(), changeSet.id()).getBytes(StandardCharsets.UTF_8));
		}
		return (int) crc.getValue();
	}

	@Override
	public boolean canExecuteInTransaction() {
		return true;
	}

	@Override
	public void migrate(Context context) throws Exception {
		Connection connection = context.getConnection();
		String database = database(connection);
		try (Statement statement = connection.createStatement()) {
			for (ChangeSet changeSet : this.changeSets) {
				for (String sql : ChangeSets.statements(changeSet.changelog(), changeSet.id(), database)) {
					statement.execute(sql);
				}
			}
		}
	}

	/** @return the database as Liquibase's {@code dbms} names it */
	static String database(Connection connection) throws java.sql.SQLException {
		String product = connection.getMetaData().getDatabaseProductName();
		return switch (product) {
			case "H2" -> "h2";
			case "PostgreSQL" -> "postgresql";
			default -> throw new IllegalStateException("The library's Flyway migrations support H2 and PostgreSQL, "
					+ "not " + product);
		};
	}

	@Override
	public String toString() {
		return (this.version != null ? "V" + this.version : "R") + " " + this.description + " " + this.changeSets;
	}

}
