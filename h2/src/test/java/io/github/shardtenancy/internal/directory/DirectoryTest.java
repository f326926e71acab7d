package io.github.shardtenancy.internal.directory;

import io.github.shardtenancy.DirectoryEntry;
import io.github.shardtenancy.DirectoryHistoryRecord;
import io.github.shardtenancy.TenantState;
import java.util.ArrayList;
import java.util.List;

import io.github.shardtenancy.DirectoryConflictException;
import io.github.shardtenancy.DirectoryUnavailableException;
import io.github.shardtenancy.ShardTenancyException;
import io.github.shardtenancy.testing.ShardTenancyFixture;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

@DisplayName("Directory")
class DirectoryTest {

	private ShardTenancyFixture fixture;

	private Directory directory;

	@BeforeEach
	void setUp() {
		this.fixture = ShardTenancyFixture.create("directory", 0);
		this.directory = this.fixture.directory();
	}

	@AfterEach
	void tearDown() {
		this.fixture.close();
	}

	@Test
	@DisplayName("a new directory is at version 0 and knows no tenant")
	void newDirectoryIsEmpty() {
		assertThat(this.directory.currentVersion()).isZero();
		assertThat(this.directory.find("acme")).isEmpty();
		assertThat(this.directory.changesSince(0).entries()).isEmpty();
		assertThat(this.directory.snapshot(entry -> { })).isZero();
	}

	@Test
	@DisplayName("every change bumps the entry's epoch and the global version and writes one history row")
	void everyChangeBumpsEpochVersionAndHistory() {
		DirectoryEntry created = this.directory.create("acme", "shard-1", "alice");
		assertThat(created).isEqualTo(new DirectoryEntry("acme", "shard-1", TenantState.ACTIVE, null, 1, 1));
		this.directory.create("globex", "shard-2", "alice");
		DirectoryEntry frozen = this.directory.update("acme", 1, "shard-1", TenantState.FROZEN, "shard-2", "bob");
		DirectoryEntry flipped = this.directory.update("acme", 2, "shard-2", TenantState.ACTIVE, null, "bob");

		assertThat(frozen).isEqualTo(new DirectoryEntry("acme", "shard-1", TenantState.FROZEN, "shard-2", 2, 3));
		assertThat(flipped).isEqualTo(new DirectoryEntry("acme", "shard-2", TenantState.ACTIVE, null, 3, 4));
		assertThat(this.directory.currentVersion()).isEqualTo(4);
		assertThat(this.directory.find("acme")).contains(flipped);
		List<DirectoryHistoryRecord> history = this.directory.history("acme");
		assertThat(history).extracting(DirectoryHistoryRecord::version, DirectoryHistoryRecord::epoch,
				DirectoryHistoryRecord::fromShardId, DirectoryHistoryRecord::toShardId,
				DirectoryHistoryRecord::fromState, DirectoryHistoryRecord::toState,
				DirectoryHistoryRecord::targetShardId, DirectoryHistoryRecord::changedBy)
			.containsExactly(
					org.assertj.core.groups.Tuple.tuple(1L, 1L, null, "shard-1", null, TenantState.ACTIVE, null,
							"alice"),
					org.assertj.core.groups.Tuple.tuple(3L, 2L, "shard-1", "shard-1", TenantState.ACTIVE,
							TenantState.FROZEN, "shard-2", "bob"),
					org.assertj.core.groups.Tuple.tuple(4L, 3L, "shard-1", "shard-2", TenantState.FROZEN,
							TenantState.ACTIVE, null, "bob"));
	}

	@Test
	@DisplayName("a change whose history row cannot be written leaves version, entry and history untouched")
	void changeIsOneTransaction() {
		DirectoryEntry created = this.directory.create("acme", "shard-1", "alice");
		ShardTenancyFixture.execute(this.fixture.directoryDataSource(), "ALTER TABLE shard_directory_history "
				+ "ADD CONSTRAINT test_no_mallory CHECK (changed_by <> 'mallory')");

		assertThatThrownBy(
				() -> this.directory.update("acme", 1, "shard-2", TenantState.ACTIVE, null, "mallory"))
			.isInstanceOf(ShardTenancyException.class);

		assertThat(this.directory.currentVersion()).isEqualTo(1);
		assertThat(this.directory.find("acme")).contains(created);
		assertThat(this.directory.history("acme")).hasSize(1);
	}

	@Test
	@DisplayName("creating a tenant that exists is a conflict and writes nothing")
	void createOfExistingTenantConflicts() {
		this.directory.create("acme", "shard-1", "alice");

		assertThatThrownBy(() -> this.directory.create("acme", "shard-2", "bob"))
			.isInstanceOf(DirectoryConflictException.class)
			.hasMessageContaining("acme")
			.hasMessageContaining("shard-1")
			.hasMessageContaining("directory version 1")
			.satisfies(ex -> assertThat(((DirectoryConflictException) ex).shardId()).isEqualTo("shard-1"));
		assertThat(this.directory.currentVersion()).isEqualTo(1);
		assertThat(this.directory.find("acme")).get().extracting(DirectoryEntry::shardId).isEqualTo("shard-1");
		assertThat(this.directory.history("acme")).hasSize(1);
	}

	@Test
	@DisplayName("an update based on a stale epoch is refused and writes nothing")
	void staleEpochUpdateIsRefused() {
		this.directory.create("acme", "shard-1", "alice");
		DirectoryEntry moved = this.directory.update("acme", 1, "shard-2", TenantState.ACTIVE, null, "alice");

		assertThatThrownBy(() -> this.directory.update("acme", 1, "shard-3", TenantState.ACTIVE, null, "bob"))
			.isInstanceOf(DirectoryConflictException.class)
			.hasMessageContaining("expected epoch 1, found 2")
			.hasMessageContaining("directory version 2");
		assertThat(this.directory.find("acme")).contains(moved);
		assertThat(this.directory.currentVersion()).isEqualTo(2);
		assertThat(this.directory.history("acme")).hasSize(2);
	}

	@Test
	@DisplayName("an update of a tenant without an entry is a conflict")
	void updateOfMissingTenantConflicts() {
		assertThatThrownBy(() -> this.directory.update("nobody", 1, "shard-1", TenantState.ACTIVE, null, "alice"))
			.isInstanceOf(DirectoryConflictException.class)
			.hasMessageContaining("nobody");
		assertThat(this.directory.currentVersion()).isZero();
	}

	@Test
	@DisplayName("changesSince returns exactly the entries changed after a version, in their latest state")
	void changesSinceReturnsChangedEntries() {
		this.directory.create("a", "shard-1", "alice");
		this.directory.create("b", "shard-1", "alice");
		this.directory.create("c", "shard-1", "alice");
		DirectoryEntry movedA = this.directory.update("a", 1, "shard-2", TenantState.ACTIVE, null, "alice");

		DirectoryChanges changes = this.directory.changesSince(2);

		assertThat(changes.fromVersion()).isEqualTo(2);
		assertThat(changes.toVersion()).isEqualTo(4);
		assertThat(changes.entries()).extracting(DirectoryEntry::tenantId).containsExactly("c", "a");
		assertThat(changes.entries()).contains(movedA);
		assertThat(this.directory.changesSince(4).entries()).isEmpty();
		assertThat(this.directory.changesSince(4).toVersion()).isEqualTo(4);
	}

	@Test
	@DisplayName("a snapshot streams every entry and the version it is complete up to")
	void snapshotStreamsEverything() {
		for (int i = 0; i < 25; i++) {
			this.directory.create("t" + i, "shard-" + (i % 3 + 1), "alice");
		}
		List<DirectoryEntry> seen = new ArrayList<>();

		long version = this.directory.snapshot(seen::add);

		assertThat(version).isEqualTo(25);
		assertThat(seen).hasSize(25).extracting(DirectoryEntry::tenantId).contains("t0", "t24");
	}

	@Test
	@DisplayName("invalid rows (unknown state, epoch below 1) are skipped by snapshot and changesSince, reported by find")
	void invalidRowsAreSkippedAndReported() {
		this.directory.create("good", "shard-1", "alice");
		ShardTenancyFixture.execute(this.fixture.directoryDataSource(),
				"INSERT INTO shard_directory_entry (tenant_id, shard_id, state, epoch, version, updated_at, updated_by) "
						+ "VALUES ('weird-state', 'shard-1', 'SLEEPING', 1, 1, CURRENT_TIMESTAMP, 'raw-sql')");
		ShardTenancyFixture.execute(this.fixture.directoryDataSource(),
				"INSERT INTO shard_directory_entry (tenant_id, shard_id, state, epoch, version, updated_at, updated_by) "
						+ "VALUES ('zero-epoch', 'shard-1', 'ACTIVE', 0, 1, CURRENT_TIMESTAMP, 'raw-sql')");
		List<DirectoryEntry> seen = new ArrayList<>();

		this.directory.snapshot(seen::add);

		assertThat(seen).extracting(DirectoryEntry::tenantId).containsExactly("good");
		assertThat(this.directory.changesSince(0).entries()).extracting(DirectoryEntry::tenantId)
			.containsExactly("good");
		assertThatThrownBy(() -> this.directory.find("weird-state")).isInstanceOf(ShardTenancyException.class)
			.isNotInstanceOf(DirectoryUnavailableException.class)
			.hasMessageContaining("weird-state")
			.hasMessageContaining("SLEEPING")
			.satisfies(ex -> assertThat(((ShardTenancyException) ex).tenantId()).isEqualTo("weird-state"));
		assertThatThrownBy(() -> this.directory.find("zero-epoch")).isInstanceOf(ShardTenancyException.class)
			.isNotInstanceOf(DirectoryUnavailableException.class)
			.hasMessageContaining("zero-epoch")
			.hasMessageContaining("epoch 0");
	}

}
