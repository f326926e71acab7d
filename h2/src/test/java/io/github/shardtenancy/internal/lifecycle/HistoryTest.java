package io.github.shardtenancy.internal.lifecycle;

import io.github.shardtenancy.DirectoryEvent;
import io.github.shardtenancy.Ownership;
import java.sql.Timestamp;
import java.time.Duration;
import java.time.Instant;
import java.util.List;

import io.github.shardtenancy.DirectoryHistoryRecord;
import io.github.shardtenancy.PlacementRequest;
import io.github.shardtenancy.TenantState;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

@DisplayName("Directory history")
class HistoryTest {

	@Test
	void answersWhichShardOwnedATenantAtAPastTimeAcrossTwoMoves() {
		try (LifecycleFixture f = LifecycleFixture.create("history", 3)) {
			DirectoryHistory history = new DirectoryHistory(f.core.directory());
			Instant beforeCreation = readNow(f);
			awaitDirectoryClockAfter(f, beforeCreation);
			f.lifecycle.create("acme", PlacementRequest.onShard("shard-1"));
			Instant onFirst = awaitDirectoryClockAfter(f, lastChange(f));
			f.lifecycle.move("acme", "shard-2");
			Instant onSecond = awaitDirectoryClockAfter(f, lastChange(f));
			f.lifecycle.move("acme", "shard-3");
			Instant onThird = awaitDirectoryClockAfter(f, lastChange(f));

			assertThat(history.ownerAt("acme", beforeCreation)).isEmpty();
			assertThat(history.ownerAt("acme", onFirst).orElseThrow().shardId()).isEqualTo("shard-1");
			assertThat(history.ownerAt("acme", onSecond).orElseThrow().shardId()).isEqualTo("shard-2");
			assertThat(history.ownerAt("acme", onThird).orElseThrow().shardId()).isEqualTo("shard-3");
			Ownership second = history.ownerAt("acme", onSecond).orElseThrow();
			assertThat(second.state()).isEqualTo(TenantState.ACTIVE);
			assertThat(second.changedBy()).isEqualTo("mover@fixture");

			List<DirectoryHistoryRecord> records = f.core.directory().history("acme");
			// create, then freeze and flip for each move: every change with who, when, from, to and version
			assertThat(records).extracting(DirectoryHistoryRecord::fromShardId, DirectoryHistoryRecord::toShardId,
					DirectoryHistoryRecord::toState)
				.containsExactly(org.assertj.core.groups.Tuple.tuple(null, "shard-1", TenantState.ACTIVE),
						org.assertj.core.groups.Tuple.tuple("shard-1", "shard-1", TenantState.FROZEN),
						org.assertj.core.groups.Tuple.tuple("shard-1", "shard-2", TenantState.ACTIVE),
						org.assertj.core.groups.Tuple.tuple("shard-2", "shard-2", TenantState.FROZEN),
						org.assertj.core.groups.Tuple.tuple("shard-2", "shard-3", TenantState.ACTIVE));
			assertThat(records).extracting(DirectoryHistoryRecord::version).isSorted().doesNotHaveDuplicates();
			assertThat(records.get(0).changedBy()).isEqualTo("test@lifecycle");
			// while frozen for the second move, shard-2 still owned it
			Instant frozen = records.get(3).changedAt();
			assertThat(history.ownerAt("acme", frozen).orElseThrow().shardId()).isEqualTo("shard-2");
			assertThat(history.ownerAt("acme", frozen).orElseThrow().state()).isEqualTo(TenantState.FROZEN);
		}
	}

	@Test
	void recordsEveryOtherDirectoryChangeWithWhoWhenFromToAndVersion() {
		try (LifecycleFixture f = LifecycleFixture.create("history-events", 2)) {
			long start = f.core.directory().currentVersion();
			f.lifecycle.create("acme");
			f.lifecycle.pin("acme");
			f.slots.initialize(16, List.of("shard-1"), "ops@test");
			f.slots.assignSlot(3, "shard-2", "ops@test");
			f.lifecycle.unpin("acme");
			assertThat(new DirectoryHistory(f.core.directory()).events(start))
				.extracting(DirectoryEvent::kind, DirectoryEvent::subject, DirectoryEvent::from, DirectoryEvent::to,
						DirectoryEvent::changedBy)
				.containsExactly(
						org.assertj.core.groups.Tuple.tuple("TENANT_PINNED", "acme", "unpinned", "pinned",
								"test@lifecycle"),
						org.assertj.core.groups.Tuple.tuple("SLOTS_INITIALIZED", "slots", null,
								"16 slots over [shard-1]", "ops@test"),
						org.assertj.core.groups.Tuple.tuple("SLOT_ASSIGNED", "slot 3", "shard-1", "shard-2", "ops@test"),
						org.assertj.core.groups.Tuple.tuple("TENANT_UNPINNED", "acme", "pinned", "unpinned",
								"test@lifecycle"));
			assertThat(new DirectoryHistory(f.core.directory()).events(start))
				.extracting(DirectoryEvent::version).isSorted().doesNotHaveDuplicates()
				.allSatisfy(v -> assertThat(v).isGreaterThan(start));
		}
	}

	private static Instant lastChange(LifecycleFixture f) {
		List<DirectoryHistoryRecord> records = f.core.directory().history("acme");
		return records.get(records.size() - 1).changedAt();
	}

	/** Waits until the directory's clock has passed a moment, so that the next change is recorded strictly after it. */
	private static Instant awaitDirectoryClockAfter(LifecycleFixture f, Instant moment) {
		await("the directory clock to pass " + moment).atMost(Duration.ofSeconds(30))
			.until(() -> readNow(f).isAfter(moment));
		return readNow(f);
	}

	private static Instant readNow(LifecycleFixture f) {
		try (var c = f.core.directoryDataSource().getConnection();
				var ps = c.prepareStatement("SELECT LOCALTIMESTAMP");
				var rs = ps.executeQuery()) {
			rs.next();
			Timestamp now = rs.getTimestamp(1);
			return now.toInstant();
		}
		catch (java.sql.SQLException ex) {
			throw new IllegalStateException(ex);
		}
	}

}
