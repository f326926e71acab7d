package io.github.shardtenancy.internal.move;

import io.github.shardtenancy.retry.FenceRejection;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.time.Duration;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicInteger;

import io.github.shardtenancy.MoveException;
import io.github.shardtenancy.TenantContext;
import io.github.shardtenancy.UnknownTenantException;
import io.github.shardtenancy.MoveResult;
import io.github.shardtenancy.internal.lifecycle.DirectoryAdmin;
import io.github.shardtenancy.TenantTable;
import io.github.shardtenancy.DirectoryEntry;
import io.github.shardtenancy.DirectoryHistoryRecord;
import io.github.shardtenancy.TenantState;
import io.github.shardtenancy.internal.fence.FenceState;
import io.github.shardtenancy.internal.fence.ShardFence;
import io.github.shardtenancy.internal.hibernate.TenantRoutingDataSource;
import io.github.shardtenancy.MoveInProgressException;
import io.github.shardtenancy.MoveSettings;
import io.github.shardtenancy.MoveStep;
import io.github.shardtenancy.internal.routing.Router;
import io.github.shardtenancy.internal.topology.Topology;
import io.github.shardtenancy.testing.ShardTenancyFixture;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

import static org.awaitility.Awaitility.await;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The stop-the-world move: the one move protocol with capture off (freeze, copy, verify, flip, clean), through
 * {@link DirectoryAdmin#move(String, String)} and the mover.
 */
@DisplayName("Stop-the-world move")
class StopTheWorldMoveTest {

	private static ShardTenancyFixture fixture;

	private static Router router;

	private static DirectoryAdmin admin;

	private static TenantRoutingDataSource routed;

	private static final AtomicInteger tenants = new AtomicInteger();

	@BeforeAll
	static void setUp() {
		fixture = ShardTenancyFixture.create("mover", 2);
		router = fixture.router();
		admin = fixture.admin(router);
		routed = new TenantRoutingDataSource(fixture.provider());
	}

	@AfterAll
	static void tearDown() {
		fixture.close();
	}

	@AfterEach
	void noConnectionLeft() {
		assertThat(fixture.activeConnections()).isZero();
	}

	private static String newTenant() {
		return "move-t" + tenants.incrementAndGet();
	}

	/** Writes {@code notes} notes with two items each for the tenant, through the routed and fenced path. */
	private static void writeNotes(String tenant, int notes) throws SQLException {
		try (TenantContext.Scope scope = TenantContext.bind(tenant); Connection c = routed.getConnection()) {
			for (int i = 0; i < notes; i++) {
				UUID note = ShardTenancyFixture.insertNote(c, tenant, tenant + " note " + i);
				for (int j = 0; j < 2; j++) {
					try (PreparedStatement ps = c.prepareStatement(
							"INSERT INTO note_item (id, note_id, tenant_id, label) VALUES (?, ?, ?, ?)")) {
						ps.setObject(1, UUID.randomUUID());
						ps.setObject(2, note);
						ps.setString(3, tenant);
						ps.setString(4, "item " + j);
						ps.executeUpdate();
					}
				}
			}
		}
	}

	private static long checksum(String shardId, String table, String tenant) throws SQLException {
		Topology.Shard shard = fixture.topology().shard(shardId);
		try (Connection c = shard.dataSource().getConnection()) {
			TablePlan plan = TablePlan.plan(c, shardId, tenant, List.of(new TenantTable(table, "tenant_id"))).get(0);
			return Checksums.countAndChecksum(shard, plan, tenant)[1];
		}
	}

	@Test
	@DisplayName("a move copies and verifies the rows, flips the directory, sets both fences and cleans the source")
	void moveCopiesFlipsFencesAndCleans() throws Exception {
		String t = newTenant();
		DirectoryEntry before = admin.create(t, "shard-1");
		writeNotes(t, 5);
		long noteChecksum = checksum("shard-1", "note", t);
		long itemChecksum = checksum("shard-1", "note_item", t);

		MoveResult result = admin.move(t, "shard-2");

		assertThat(result.sourceShardId()).isEqualTo("shard-1");
		assertThat(result.targetShardId()).isEqualTo("shard-2");
		assertThat(result.rowsCopied()).containsEntry("note", 5L).containsEntry("note_item", 10L);
		assertThat(result.totalRowsCopied()).isEqualTo(15);
		assertThat(result.freezeVersion()).isGreaterThan(before.version());
		assertThat(result.flipVersion()).isGreaterThan(result.freezeVersion());

		assertThat(fixture.rows("shard-2", "note", t)).isEqualTo(5);
		assertThat(fixture.rows("shard-2", "note_item", t)).isEqualTo(10);
		assertThat(checksum("shard-2", "note", t)).isEqualTo(noteChecksum);
		assertThat(checksum("shard-2", "note_item", t)).isEqualTo(itemChecksum);
		assertThat(fixture.rows("shard-1", "note", t)).isZero();
		assertThat(fixture.rows("shard-1", "note_item", t)).isZero();

		DirectoryEntry after = fixture.directory().find(t).orElseThrow();
		assertThat(after).isEqualTo(new DirectoryEntry(t, "shard-2", TenantState.ACTIVE, null, before.epoch() + 2,
				result.flipVersion()));
		assertThat(router.cached(t)).contains(after);
		assertThat(fixture.directory().history(t)).extracting(DirectoryHistoryRecord::toState)
			.containsExactly(TenantState.ACTIVE, TenantState.FROZEN, TenantState.ACTIVE);
		assertThat(ShardFence.get(fixture.pool("shard-2"), "shard-2", t))
			.contains(new ShardFence.Row(FenceState.OWNED, result.flipVersion()));
		assertThat(ShardFence.get(fixture.pool("shard-1"), "shard-1", t))
			.contains(new ShardFence.Row(FenceState.MOVED, result.flipVersion()));

		writeNotes(t, 1); // the tenant works on its new shard
		assertThat(fixture.rows("shard-2", "note", t)).isEqualTo(6);
	}

	@Test
	@DisplayName("with a clean delay, the source keeps its rows until the mover cleans them on its executor; a move back "
			+ "is refused until then, and allowed after")
	void delayedCleanRunsOnTheExecutorAndHoldsTheTenantUntilThen() throws Exception {
		String t = newTenant();
		admin.create(t, "shard-1");
		writeNotes(t, 3);
		Mover mover = fixture.mover(router, ShardTenancyFixture.TABLES);
		MoveSettings delayed = MoveSettings.stopTheWorld().withCleanDelay(Duration.ofMillis(500));

		MoveResult away = mover.moveAndWait(t, "shard-2", delayed);
		assertThat(away.step()).isEqualTo(MoveStep.FLIPPED);
		assertThat(fixture.rows("shard-1", "note", t)).as("source rows kept during the safety period").isEqualTo(3);
		assertThatThrownBy(() -> mover.moveAndWait(t, "shard-1", delayed))
			.isInstanceOfSatisfying(MoveInProgressException.class, ex -> assertThat(ex.moveId()).isEqualTo(away.moveId()));
		await("the delayed clean of the first move").atMost(Duration.ofSeconds(30)).until(() -> mover.status(away.moveId()).step() == MoveStep.DONE);
		assertThat(fixture.rows("shard-1", "note", t)).isZero();
		assertThat(fixture.rows("shard-2", "note", t)).isEqualTo(3);

		MoveResult back = mover.moveAndWait(t, "shard-1", delayed.withCleanDelay(Duration.ZERO));

		assertThat(back.step()).isEqualTo(MoveStep.DONE);
		assertThat(back.flipVersion()).isGreaterThan(away.flipVersion());
		assertThat(fixture.rows("shard-1", "note", t)).isEqualTo(3);
		assertThat(fixture.rows("shard-1", "note_item", t)).isEqualTo(6);
		assertThat(fixture.rows("shard-2", "note", t)).isZero();
		writeNotes(t, 1);
		assertThat(fixture.rows("shard-1", "note", t)).isEqualTo(4);
	}

	@Test
	@DisplayName("the tenant's neighbours on both shards are untouched and keep working")
	void neighboursAreUntouched() throws Exception {
		String t = newTenant();
		String sourceNeighbour = newTenant();
		String targetNeighbour = newTenant();
		admin.create(t, "shard-1");
		DirectoryEntry sourceEntry = admin.create(sourceNeighbour, "shard-1");
		DirectoryEntry targetEntry = admin.create(targetNeighbour, "shard-2");
		writeNotes(t, 2);
		writeNotes(sourceNeighbour, 3);
		writeNotes(targetNeighbour, 4);
		long sourceChecksum = checksum("shard-1", "note_item", sourceNeighbour);
		long targetChecksum = checksum("shard-2", "note_item", targetNeighbour);

		admin.move(t, "shard-2");

		assertThat(fixture.rows("shard-1", "note", sourceNeighbour)).isEqualTo(3);
		assertThat(fixture.rows("shard-2", "note", targetNeighbour)).isEqualTo(4);
		assertThat(fixture.rows("shard-2", "note", sourceNeighbour)).isZero();
		assertThat(fixture.rows("shard-1", "note", targetNeighbour)).isZero();
		assertThat(checksum("shard-1", "note_item", sourceNeighbour)).isEqualTo(sourceChecksum);
		assertThat(checksum("shard-2", "note_item", targetNeighbour)).isEqualTo(targetChecksum);
		assertThat(fixture.directory().find(sourceNeighbour)).contains(sourceEntry);
		assertThat(fixture.directory().find(targetNeighbour)).contains(targetEntry);
		writeNotes(sourceNeighbour, 1);
		writeNotes(targetNeighbour, 1);
		assertThat(fixture.rows("shard-1", "note", sourceNeighbour)).isEqualTo(4);
		assertThat(fixture.rows("shard-2", "note", targetNeighbour)).isEqualTo(5);
	}

	@Test
	@DisplayName("a router that did not see the move is rejected by the source fence, and finds the target after invalidating")
	void staleRouterIsRejectedThenFindsTheTarget() throws Exception {
		String t = newTenant();
		admin.create(t, "shard-1");
		writeNotes(t, 1);
		Router otherInstance = fixture.newRouter(io.github.shardtenancy.RouterSettings.defaults());

		fixture.admin(otherInstance).move(t, "shard-2");

		assertThatThrownBy(() -> writeNotes(t, 1))
			.satisfies(ex -> assertThat(FenceRejection.find(ex).orElseThrow().reason()).isEqualTo("MOVED"));
		router.invalidate(t);
		writeNotes(t, 1);
		assertThat(fixture.rows("shard-2", "note", t)).isEqualTo(2);
		assertThat(fixture.rows("shard-1", "note", t)).isZero();
	}

	@Test
	@DisplayName("a move of a tenant that is not ACTIVE is refused and changes nothing")
	void moveOfNonActiveTenantIsRefused() throws Exception {
		String t = newTenant();
		DirectoryEntry created = admin.create(t, "shard-1");
		writeNotes(t, 1);
		DirectoryEntry frozen = fixture.directory().update(t, created.epoch(), "shard-1", TenantState.FROZEN,
				"shard-2", "someone-else");

		assertThatThrownBy(() -> admin.move(t, "shard-2")).isInstanceOf(MoveException.class)
			.hasMessageContaining(t)
			.hasMessageContaining("FROZEN")
			.hasMessageContaining("shard-1")
			.hasMessageContaining("directory version " + frozen.version());

		assertThat(fixture.directory().find(t)).contains(frozen);
		assertThat(fixture.rows("shard-1", "note", t)).isEqualTo(1);
		assertThat(fixture.rows("shard-2", "note", t)).isZero();
		assertThat(ShardFence.get(fixture.pool("shard-2"), "shard-2", t)).isEmpty();
	}

	@Test
	@DisplayName("a move to the shard that already owns the tenant, or of an unknown tenant, is refused")
	void pointlessMovesAreRefused() {
		String t = newTenant();
		admin.create(t, "shard-1");

		assertThatThrownBy(() -> admin.move(t, "shard-1")).isInstanceOf(MoveException.class)
			.hasMessageContaining("already lives on shard 'shard-1'");
		assertThatThrownBy(() -> admin.move("nobody-here", "shard-2")).isInstanceOf(UnknownTenantException.class);
	}

	@Test
	@DisplayName("a table without the tenant column makes the move fail with a MoveException naming it, before the freeze")
	void tableWithoutTenantColumnIsNamed() throws Exception {
		String t = newTenant();
		DirectoryEntry created = admin.create(t, "shard-1");
		writeNotes(t, 1);
		Mover mover = fixture.mover(router,
				List.of(new TenantTable("note", "tenant_id"), new TenantTable("plain_table", "tenant_id")));

		assertThatThrownBy(() -> mover.moveAndWait(t, "shard-2", MoveSettings.stopTheWorld()))
			.isInstanceOf(MoveException.class)
			.hasMessageContaining("plain_table")
			.hasMessageContaining("tenant_id")
			.hasMessageContaining("shard-1")
			.satisfies(ex -> assertThat(((MoveException) ex).tenantId()).isEqualTo(t));

		assertThat(fixture.directory().find(t)).contains(created);
		assertThat(ShardFence.get(fixture.pool("shard-1"), "shard-1", t))
			.contains(new ShardFence.Row(FenceState.OWNED, created.version()));
		assertThat(fixture.rows("shard-1", "note", t)).isEqualTo(1);
		writeNotes(t, 1);
	}

}
