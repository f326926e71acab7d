package io.github.shardtenancy.flyway;

import java.util.List;

import io.github.shardtenancy.flyway.ChangeSetMigration.ChangeSet;

import static io.github.shardtenancy.flyway.ChangeSetMigration.repeatable;
import static io.github.shardtenancy.flyway.ChangeSetMigration.versioned;

/**
 * The library's Flyway migrations, each mapped to the change sets of the Liquibase changelogs it runs. A change set
 * added to a changelog needs its line here ({@code LibraryMigrationsTest} fails until it has one). Versions never
 * change once released; repeatable migrations run after the versioned ones, in the order of their descriptions.
 */
final class LibraryMigrations {

	/** The directory database: the changelog directory.xml and its includes. */
	static final List<ChangeSetMigration> DIRECTORY = List.of(
			versioned("1", "directory entries, version and history", "directory.xml", "directory-1"),
			versioned("2", "move log", "directory-moves.xml", "moves-1"),
			versioned("3", "shard registry, slots, overrides, pins and events", "directory-lifecycle.xml",
					"lifecycle-1"),
			versioned("4", "id generator leases", "directory-ids.xml", "ids-1"),
			versioned("5", "reference data log", "directory-reference.xml", "reference-1"),
			versioned("6", "tenant task outcomes", "directory-tasks.xml", "tasks-1"),
			versioned("7", "shard read replicas", "directory-replicas.xml", "replicas-1"),
			versioned("11", "instance heartbeat", "directory-instances.xml", "instances-1"),
			versioned("12", "integer id blocks", "directory-id-blocks.xml", "id-blocks-1"),
			versioned("13", "tenant task run leases", "directory-tasks.xml", "tasks-2"),
			repeatable("directory notification (PostgreSQL)", new ChangeSet("directory.xml", "directory-pg-1")));

	/**
	 * A shard: the changelog shard.xml and its includes. The PostgreSQL fence's functions, the change capture, the
	 * regeneration of the registered tables' triggers and their installation on the completion marks are one
	 * repeatable migration, so that a change of any of them
	 * runs them again in the changelog's order.
	 */
	static final List<ChangeSetMigration> SHARD = List.of(
			versioned("1", "fence tables", "shard.xml", "fence-1"),
			versioned("2", "change capture tables", "shard-changes.xml", "changes-1"),
			versioned("3", "reference data version", "shard-reference.xml", "reference-1"),
			versioned("4", "tenant task completion marks", "shard-tasks.xml", "tasks-1"),
			versioned("5", "tenant task completion mark tokens", "shard-tasks.xml", "tasks-2"),
			repeatable("fence functions (H2)", new ChangeSet("shard.xml", "fence-h2-1")),
			repeatable("fence functions and triggers (PostgreSQL)", new ChangeSet("shard.xml", "fence-pg-capture-1"),
					new ChangeSet("shard.xml", "fence-pg-1"), new ChangeSet("shard-changes.xml", "changes-pg-1"),
					new ChangeSet("shard-changes.xml", "fence-pg-triggers-2"),
					new ChangeSet("shard-changes.xml", "fence-pg-seal-1"),
					new ChangeSet("shard-changes.xml", "fence-pg-capture-2"),
					new ChangeSet("shard-changes.xml", "fence-pg-partitions-1"),
					new ChangeSet("shard-tasks.xml", "tasks-pg-1")));

	/**
	 * The change set Liquibase runs at every update ({@code runAlways}): the PostgreSQL fence's DDL refusal, installed
	 * once a migration runs as a superuser. Run after every Flyway migration of a shard, outside Flyway's history.
	 */
	static final ChangeSet SHARD_ALWAYS = new ChangeSet("shard.xml", "fence-pg-ddl-1");

	private LibraryMigrations() {
	}

}
