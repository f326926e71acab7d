package io.github.shardtenancy.internal.move;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import io.github.shardtenancy.DirectoryEntry;
import io.github.shardtenancy.DualRead;
import io.github.shardtenancy.DualReadSettings;
import io.github.shardtenancy.MoveException;
import io.github.shardtenancy.MoveSettings;
import io.github.shardtenancy.MoveStep;
import io.github.shardtenancy.TenantState;
import io.github.shardtenancy.internal.topology.Topology;
import io.github.shardtenancy.spi.ShardTenancyObserver;
import io.github.shardtenancy.testing.HeldMove;
import org.h2.tools.Server;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

/**
 * The dual read during real online moves on H2 shards: comparisons while the tenant is MIGRATING, a target row changed
 * behind the mover's back, a target this instance cannot reach, and the registered queries in the verification.
 */
class DualReadTest {

	private static final String TENANT = "acme";

	private static final String ORDERS = "SELECT id, amount, label FROM customer_order WHERE tenant_id = ?";

	private MoveFixture fixture;

	private ShadowReads dualRead;

	private final ExecutorService pool = Executors.newCachedThreadPool();

	private final List<String> told = new CopyOnWriteArrayList<>();

	private final AtomicBoolean stop = new AtomicBoolean();

	@BeforeEach
	void setUp() throws Exception {
		this.fixture = new MoveFixture(2, 8);
		this.fixture.admin().create(TENANT, "shard-1");
		MoveFixture.writer(this.fixture, TENANT, this.stop).write(60);
		this.fixture.router().addObserver(new ShardTenancyObserver() {
			@Override
			public void dualRead(String name, String outcome, long nanos) {
				DualReadTest.this.told.add(name + "/" + outcome);
			}
		});
	}

	@AfterEach
	void tearDown() throws Exception {
		this.stop.set(true);
		if (this.dualRead != null) {
			this.dualRead.close();
		}
		this.pool.shutdownNow();
		this.pool.awaitTermination(30, TimeUnit.SECONDS);
		this.fixture.close();
	}

	private ShadowReads dualRead(Topology topology, DualReadSettings settings, Mover mover) {
		this.dualRead = new ShadowReads(this.fixture.router(), topology, settings, mover::findActive);
		this.dualRead.register("orders", ORDERS);
		return this.dualRead;
	}

	private static DualReadSettings on() {
		return DualReadSettings.defaults().withEnabled(true).withRecheckDelay(Duration.ofMillis(50)).withRechecks(2);
	}

	private static MoveSettings settings() {
		return MoveSettings.defaults().withBatchSize(20).withCatchUpLagThreshold(0).withMaxCatchUpRounds(5);
	}

	/** A move of the tenant to shard-2, held after a step (and after a second, if given). */
	private HeldMove held(Mover mover, MoveStep holdAfter, MoveStep holdAgainAfter) {
		return new HeldMove(mover::withHook, this.pool, TENANT, "shard-2", settings(), holdAfter, holdAgainAfter);
	}

	/** The application's read: a tenant-bound connection of the connection provider, through the fence. */
	private Map<Long, String> callerRead() throws SQLException {
		Connection c = this.fixture.provider().getConnection(TENANT);
		c.setAutoCommit(false);
		try (PreparedStatement ps = c.prepareStatement("SELECT id, amount, label FROM customer_order")) {
			Map<Long, String> rows = new TreeMap<>();
			try (ResultSet rs = ps.executeQuery()) {
				while (rs.next()) {
					rows.put(rs.getLong(1), rs.getInt(2) + ":" + rs.getString(3));
				}
			}
			return rows;
		}
		finally {
			c.rollback();
			c.setAutoCommit(true);
			this.fixture.provider().releaseConnection(TENANT, c);
		}
	}

	/** The application's write, on the source (captured for the catch-up). */
	private void callerWrite(String sql) throws SQLException {
		Connection c = this.fixture.provider().getConnection(TENANT);
		c.setAutoCommit(false);
		try {
			assertThat(c.createStatement().executeUpdate(sql)).isEqualTo(1);
			c.commit();
		}
		finally {
			c.setAutoCommit(true);
			this.fixture.provider().releaseConnection(TENANT, c);
		}
	}

	@Test
	@DisplayName("while the tenant is MIGRATING and caught up, the shadow read matches and the verification runs the "
			+ "registered query; the move completes")
	void shadowReadMatchesDuringARealMove() throws Exception {
		Mover base = this.fixture.mover();
		ShadowReads dual = dualRead(this.fixture.topology(), on(), base);
		Mover mover = base.withDualRead(dual);
		HeldMove move = held(mover, MoveStep.CAUGHT_UP, null);
		DirectoryEntry entry = this.fixture.directory().find(TENANT).orElseThrow();
		assertThat(entry.state()).isEqualTo(TenantState.MIGRATING);
		this.fixture.router().invalidate(TENANT);

		Map<Long, String> read = callerRead();
		DualRead.Result result = dual.compare(TENANT, "orders").get(30, TimeUnit.SECONDS);

		assertThat(read).isNotEmpty().hasSameSizeAs(this.fixture.orders("shard-1", TENANT));
		assertThat(result.outcome()).as(result.toString()).isEqualTo(DualRead.Outcome.MATCH);
		assertThat(result.sourceShardId()).isEqualTo("shard-1");
		assertThat(result.targetShardId()).isEqualTo("shard-2");
		assertThat(this.told).containsExactly("orders/match");
		move.release();
		assertThat(move.result().get(60, TimeUnit.SECONDS).step()).isEqualTo(MoveStep.DONE);
		assertThat(move.verified().stepData())
			.contains("dual-read queries equal: 1, mismatches during the move seen here: 0");
	}

	@Test
	@DisplayName("a row the catch-up has not applied yet is a difference; with re-checks it is reported as the target "
			+ "being behind (or a match), never as a mismatch, once the catch-up goes on")
	void aLaggingTargetIsBehindNotAMismatch() throws Exception {
		Mover base = this.fixture.mover();
		ShadowReads patient = dualRead(this.fixture.topology(),
				on().withRechecks(50).withRecheckDelay(Duration.ofMillis(100)).withTimeout(Duration.ofSeconds(20)),
				base);
		HeldMove move = held(base.withDualRead(patient), MoveStep.COPIED, MoveStep.CAUGHT_UP);
		this.fixture.router().invalidate(TENANT);
		int orders = this.fixture.orders("shard-1", TENANT).size();
		callerWrite("INSERT INTO customer_order (id, tenant_id, amount, label) VALUES (999000001, 'acme', 7, 'late')");
		try (ShadowReads strict = new ShadowReads(this.fixture.router(), this.fixture.topology(),
				on().withRechecks(0), base::findActive)) {
			DualRead.Result lagging = strict.compare(TENANT, "orders", ORDERS, List.of(TENANT)).get(30,
					TimeUnit.SECONDS);
			assertThat(lagging.outcome()).as("held before the catch-up, no re-check").isEqualTo(DualRead.Outcome.MISMATCH);
			assertThat(lagging.detail()).startsWith("source has " + (orders + 1) + " rows, target " + orders
					+ "; first row only on the source (999000001, 7, late)");
		}
		CompletableFuture<DualRead.Result> comparison = patient.compare(TENANT, "orders");
		move.release(); // the catch-up applies the row; the move is held again, MIGRATING, after it

		DualRead.Result result = comparison.get(30, TimeUnit.SECONDS);
		move.releaseAgain();

		assertThat(result.outcome()).as(result.toString()).isIn(DualRead.Outcome.BEHIND, DualRead.Outcome.MATCH);
		assertThat(move.result().get(60, TimeUnit.SECONDS).step()).isEqualTo(MoveStep.DONE);
		System.out.println("dual read of a lagging target (H2), with re-checks: " + result.outcome());
	}

	@Test
	@DisplayName("a target row changed behind the mover's back is a mismatch (observer told, counted for the move) and "
			+ "fails the verification; the caller's read is unchanged and the tenant stays on its source")
	void corruptedTargetRowIsAMismatchAndFailsTheVerification() throws Exception {
		Mover base = this.fixture.mover();
		ShadowReads dual = dualRead(this.fixture.topology(), on(), base);
		HeldMove move = held(base.withDualRead(dual), MoveStep.CAUGHT_UP, null);
		String moveId = base.findActive(TENANT).orElseThrow().moveId();
		this.fixture.router().invalidate(TENANT);
		Map<Long, String> before = callerRead();
		long corrupted = before.keySet().iterator().next();
		corrupt("shard-2", "UPDATE customer_order SET amount = amount + 1000 WHERE id = " + corrupted);

		Map<Long, String> after = callerRead();
		DualRead.Result result = dual.compare(TENANT, "orders").get(30, TimeUnit.SECONDS);

		assertThat(after).isEqualTo(before);
		assertThat(this.fixture.orders("shard-2", TENANT).get(corrupted))
			.isEqualTo(this.fixture.orders("shard-1", TENANT).get(corrupted) + 1000);
		assertThat(result.outcome()).as(result.toString()).isEqualTo(DualRead.Outcome.MISMATCH);
		assertThat(result.detail()).contains("(" + corrupted + ", ");
		assertThat(this.told).containsExactly("orders/mismatch");
		assertThat(dual.mismatches(moveId)).isEqualTo(1);
		move.release();
		assertThatThrownBy(() -> move.result().get(60, TimeUnit.SECONDS)).hasCauseInstanceOf(MoveException.class)
			.cause()
			.hasMessageContaining("failed for dual-read query 'orders' between source 'shard-1' and target 'shard-2'")
			.hasMessageContaining("the move was aborted");
		assertThat(base.status(moveId).step()).isEqualTo(MoveStep.ABORTED);
		DirectoryEntry entry = this.fixture.directory().find(TENANT).orElseThrow();
		assertThat(entry.shardId()).isEqualTo("shard-1");
		assertThat(entry.state()).isEqualTo(TenantState.ACTIVE);
		assertThat(callerRead()).isEqualTo(before);
	}

	@Test
	@DisplayName("the same corrupted row passes the checksum verification's fast path without the dual read's "
			+ "registered queries (what the dual read adds)")
	void withoutTheDualReadTheCorruptedRowIsNotCaught() throws Exception {
		Mover base = this.fixture.mover();
		HeldMove move = held(base, MoveStep.CAUGHT_UP, null);
		long corrupted = callerRead().keySet().iterator().next();
		int amount = this.fixture.orders("shard-1", TENANT).get(corrupted);
		corrupt("shard-2", "UPDATE customer_order SET amount = amount + 1000 WHERE id = " + corrupted);
		move.release();

		assertThat(move.result().get(60, TimeUnit.SECONDS).step()).isEqualTo(MoveStep.DONE);
		assertThat(this.fixture.orders("shard-2", TENANT).get(corrupted)).isEqualTo(amount + 1000);
	}

	@Test
	@DisplayName("a target this instance cannot reach is an error, counted, within the time limit; the caller reads "
			+ "as usual and the move completes")
	void unreachableTargetIsAnErrorWithNoCallerImpact() throws Exception {
		Server server = Server.createTcpServer("-tcpPort", "0", "-ifNotExists").start();
		Topology seenFromHere = new Topology();
		try {
			seenFromHere.addShard("shard-1", this.fixture.topology().shard("shard-1").dataSource());
			HikariConfig config = new HikariConfig();
			config.setJdbcUrl(this.fixture.url("shard-2").replace("jdbc:h2:mem:",
					"jdbc:h2:tcp://localhost:" + server.getPort() + "/mem:"));
			config.setConnectionTimeout(500);
			config.setMaximumPoolSize(2);
			seenFromHere.addShard("shard-2", config);
			Mover base = this.fixture.mover();
			ShadowReads dual = dualRead(seenFromHere, on().withTimeout(Duration.ofSeconds(3)), base);
			HeldMove move = held(base.withDualRead(dual), MoveStep.CAUGHT_UP, null);
			this.fixture.router().invalidate(TENANT);
			assertThat(dual.compare(TENANT, "orders").get(30, TimeUnit.SECONDS).outcome())
				.as("reachable before the stop")
				.isEqualTo(DualRead.Outcome.MATCH);
			Map<Long, String> before = callerRead();
			server.stop();
			((HikariDataSource) seenFromHere.shard("shard-2").dataSource()).getHikariPoolMXBean()
				.softEvictConnections();

			Map<Long, String> read = callerRead();
			DualRead.Result result = dual.compare(TENANT, "orders").get(30, TimeUnit.SECONDS);

			assertThat(read).isEqualTo(before).isNotEmpty();
			assertThat(result.outcome()).as(result.toString()).isEqualTo(DualRead.Outcome.ERROR);
			assertThat(result.targetShardId()).isIn("shard-2", null);
			assertThat(this.told).containsExactly("orders/match", "orders/error");
			move.release();
			assertThat(move.result().get(60, TimeUnit.SECONDS).step()).isEqualTo(MoveStep.DONE);
		}
		finally {
			server.stop();
			seenFromHere.close();
		}
	}

	@Test
	@DisplayName("off by default: nothing is compared or told, and the verification ignores the registered queries")
	void offByDefault() throws Exception {
		Mover base = this.fixture.mover();
		ShadowReads dual = dualRead(this.fixture.topology(), DualReadSettings.defaults(), base);
		HeldMove move = held(base.withDualRead(dual), MoveStep.CAUGHT_UP, null);
		corrupt("shard-2", "UPDATE customer_order SET label = 'changed' WHERE tenant_id = 'acme'");

		DualRead.Result result = dual.compare(TENANT, "orders").get(30, TimeUnit.SECONDS);

		assertThat(result.outcome()).isEqualTo(DualRead.Outcome.SKIPPED);
		assertThat(result.detail()).isEqualTo("dual read is off");
		assertThat(this.told).isEmpty();
		move.release();
		assertThat(move.result().get(60, TimeUnit.SECONDS).step()).isEqualTo(MoveStep.DONE);
		assertThat(move.verified().stepData()).doesNotContain("dual-read");
	}

	/** Writes to a shard as the mover does (the fence lets it through), but not as part of the move. */
	private void corrupt(String shardId, String sql) throws SQLException {
		Topology.Shard shard = this.fixture.topology().shard(shardId);
		try (Connection c = shard.dataSource().getConnection()) {
			c.setAutoCommit(false);
			shard.dialect().beginMover(c, TENANT);
			assertThat(c.createStatement().executeUpdate(sql)).isPositive();
			c.commit();
			shard.dialect().end(c);
			c.setAutoCommit(true);
		}
	}

}
