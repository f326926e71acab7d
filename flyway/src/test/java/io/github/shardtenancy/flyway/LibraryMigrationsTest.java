package io.github.shardtenancy.flyway;

import java.util.ArrayList;
import java.util.List;

import io.github.shardtenancy.flyway.ChangeSetMigration.ChangeSet;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

@DisplayName("The Flyway migrations map every change set of the Liquibase changelogs")
class LibraryMigrationsTest {

	@Test
	@DisplayName("each change set of directory.xml and its includes is run by exactly one directory migration")
	void directory() {
		assertThat(mapped(LibraryMigrations.DIRECTORY)).containsExactlyInAnyOrderElementsOf(changeSets("directory.xml"));
	}

	@Test
	@DisplayName("each change set of shard.xml and its includes is run by exactly one shard migration or at every run")
	void shard() {
		List<ChangeSet> mapped = mapped(LibraryMigrations.SHARD);
		mapped.add(LibraryMigrations.SHARD_ALWAYS);
		assertThat(mapped).containsExactlyInAnyOrderElementsOf(changeSets("shard.xml"));
	}

	@Test
	@DisplayName("every mapped change set reads as SQL on H2 and PostgreSQL")
	void everyChangeSetReads() {
		List<ChangeSetMigration> all = new ArrayList<>(LibraryMigrations.DIRECTORY);
		all.addAll(LibraryMigrations.SHARD);
		for (ChangeSetMigration migration : all) {
			for (ChangeSet changeSet : migration.changeSets()) {
				int statements = ChangeSets.statements(changeSet.changelog(), changeSet.id(), "h2").size()
						+ ChangeSets.statements(changeSet.changelog(), changeSet.id(), "postgresql").size();
				assertThat(statements).as("%s", changeSet).isPositive();
			}
		}
	}

	private static List<ChangeSet> mapped(List<ChangeSetMigration> migrations) {
		List<ChangeSet> mapped = new ArrayList<>();
		migrations.forEach((migration) -> mapped.addAll(migration.changeSets()));
		return mapped;
	}

	private static List<ChangeSet> changeSets(String changelog) {
		List<ChangeSet> changeSets = new ArrayList<>();
		ChangeSets.ids(changelog).forEach((id) -> changeSets.add(new ChangeSet(changelog, id)));
		ChangeSets.includes(changelog).forEach((include) -> changeSets.addAll(changeSets(include)));
		return changeSets;
	}

}
