package io.github.shardtenancy.tasks;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;

import com.zaxxer.hikari.HikariConfig;
import io.github.shardtenancy.MoveSettings;
import io.github.shardtenancy.ShardQueryResult;
import io.github.shardtenancy.ShardTenancy;
import io.github.shardtenancy.ShardUnavailableException;
import io.github.shardtenancy.TenantContext;
import io.github.shardtenancy.TenantTaskOptions;
import io.github.shardtenancy.TenantTaskResult;
import io.github.shardtenancy.TenantTaskResult.Status;
import io.github.shardtenancy.TenantTaskRun;
import io.github.shardtenancy.liquibase.ShardTenancyMigrations;
import io.github.shardtenancy.testing.ShardTenancyFixture;
import org.h2.tools.Server;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

/**
 * {@link ShardTenancy#tenantTasks()} on real H2 shards wired by {@link ShardTenancy#builder()}: every tenant run once in
 * its own transaction, a failing tenant isolated, a stopped named run resumed without running a committed tenant
 * again (also after the tenant moved), tenants moved during a run processed exactly once, and scatter-gather queries
 * with a shard down and a shard too slow. Shard 3 is served by an H2 TCP server, so that stopping the server takes it
 * down for real.
 */
@DisplayName("Tenant tasks on H2: once per tenant, resumable, under moves; scatter-gather with a shard down")
class TenantTasksTest {

	private final String name = "tasks-" + UUID.randomUUID().toString().substring(0, 8);

	private Server server;

	private ShardTenancy tenancy;

	private final List<String> tenants = new ArrayList<>();

	@BeforeEach
	void start() throws Exception {
		String baseDir = java.nio.file.Files.createTempDirectory("h2-tasks").toString();
		this.server = Server.createTcpServer("-tcpPort", "0", "-ifNotExists", "-baseDir", baseDir).start();
		this.tenancy = ShardTenancy.builder()
			.directory(pool(memUrl("directory")))
			.shard("shard-1", pool(memUrl("shard-1")))
			.shard("shard-2", pool(memUrl("shard-2")))
			.shard("shard-3", pool("jdbc:h2:tcp://localhost:" + this.server.getPort() + "/" + this.name
					+ "-shard-3;LOCK_TIMEOUT=10000"))
			.tenantTables(ShardTenancyFixture.TABLES)
			.actor("tasks@test")
			.build();
		ShardTenancyMigrations.migrateDirectory(this.tenancy.directoryDataSource());
		for (String shardId : this.tenancy.topology().shardIds()) {
			ShardTenancyMigrations.migrateShard(this.tenancy.topology().dataSource(shardId), shardId,
					List.of(ShardTenancyFixture.CHANGELOG));
		}
		this.tenancy.start();
		for (int i = 0; i < 30; i++) {
			String tenant = "t-" + i;
			this.tenancy.admin().create(tenant, "shard-" + (1 + i % 3));
			this.tenants.add(tenant);
		}
	}

	@AfterEach
	void stop() {
		if (this.tenancy != null) {
			this.tenancy.close();
		}
		this.server.stop();
		shutdown(memUrl("shard-1"));
		shutdown(memUrl("shard-2"));
		shutdown(memUrl("directory"));
	}

	@Test
	@DisplayName("every tenant runs once in its own transaction; one failing tenant stops no other and commits nothing")
	void everyTenantOnce() throws Exception {
		Map<String, AtomicInteger> calls = new ConcurrentHashMap<>();
		TenantTaskRun<String> run = this.tenancy.tenantTasks()
			.start(TenantTaskOptions.unnamed().perShard(3), (tenant, connection) -> {
				calls.computeIfAbsent(tenant, (t) -> new AtomicInteger()).incrementAndGet();
				assertThat(TenantContext.current()).isEqualTo(tenant);
				insertNote(connection, tenant, "nightly");
				if (tenant.equals("t-13")) {
					throw new IllegalStateException("t-13 fails");
				}
				return tenant.toUpperCase();
			});
		long started = System.nanoTime();
		Map<String, TenantTaskResult<String>> results = run.await();
		System.out.println("30 tenants, 3 per shard: " + Duration.ofNanos(System.nanoTime() - started).toMillis() + " ms");

		assertThat(results).hasSize(30);
		assertThat(run.progress().finished()).isTrue();
		assertThat(run.progress().done()).isEqualTo(29);
		assertThat(run.progress().failed()).isEqualTo(1);
		assertThat(results.get("t-13").status()).isEqualTo(Status.FAILED);
		assertThat(results.get("t-13").error()).hasMessage("t-13 fails");
		assertThat(results.get("t-4").status()).isEqualTo(Status.DONE);
		assertThat(results.get("t-4").value()).isEqualTo("T-4");
		assertThat(results.get("t-4").shardId()).isEqualTo("shard-2");
		for (String tenant : this.tenants) {
			assertThat(calls.get(tenant)).as(tenant).hasValue(1);
			assertThat(notes(tenant)).as(tenant).isEqualTo(tenant.equals("t-13") ? 0 : 1);
		}
	}

	@Test
	@DisplayName("only the tenants of one shard, or of a list; an unknown tenant is reported failed")
	void selections() {
		Map<String, TenantTaskResult<Object>> byShard = this.tenancy.tenantTasks()
			.start(TenantTaskOptions.unnamed().shard("shard-2"), (tenant, connection) -> null)
			.await();
		assertThat(byShard.keySet()).hasSize(10).allMatch((t) -> Integer.parseInt(t.substring(2)) % 3 == 1);

		Map<String, TenantTaskResult<Object>> listed = this.tenancy.tenantTasks()
			.start(TenantTaskOptions.unnamed().tenants(List.of("t-1", "t-2", "t-1", "nobody")),
					(tenant, connection) -> null)
			.await();
		assertThat(listed.keySet()).containsExactlyInAnyOrder("t-1", "t-2", "nobody");
		assertThat(listed.get("t-2").status()).isEqualTo(Status.DONE);
		assertThat(listed.get("nobody").status()).isEqualTo(Status.FAILED);
	}

	@Test
	@DisplayName("a stopped named run resumes without running a committed tenant again, even one moved since")
	void resumeNeverRunsTwice() throws Exception {
		Map<String, AtomicInteger> committed = new ConcurrentHashMap<>();
		CountDownLatch tenDone = new CountDownLatch(10);
		CountDownLatch stopped = new CountDownLatch(1);
		TenantTaskRun<Void> first = this.tenancy.tenantTasks()
			.start(TenantTaskOptions.named("nightly-1"), (tenant, connection) -> {
				if (tenDone.getCount() == 0) {
					// The run is stopped after ten tenants; the workers still running finish theirs.
					assertThat(stopped.await(30, TimeUnit.SECONDS)).isTrue();
				}
				insertNote(connection, tenant, "nightly-1");
				committed.computeIfAbsent(tenant, (t) -> new AtomicInteger()).incrementAndGet();
				tenDone.countDown();
				return null;
			});
		assertThat(tenDone.await(30, TimeUnit.SECONDS)).isTrue();
		first.stop();
		stopped.countDown();
		Map<String, TenantTaskResult<Void>> firstResults = first.await();
		Set<String> doneFirst = firstResults.entrySet()
			.stream()
			.filter((e) -> e.getValue().status() == Status.DONE)
			.map(Map.Entry::getKey)
			.collect(java.util.stream.Collectors.toSet());
		assertThat(first.progress().notRun()).isPositive();
		assertThat(doneFirst).hasSizeGreaterThanOrEqualTo(10);

		// A crash after the shard commit but before the directory write: only the shard's mark is left.
		String crashed = doneFirst.iterator().next();
		try (Connection c = this.tenancy.directoryDataSource().getConnection();
				PreparedStatement s = c.prepareStatement("DELETE FROM shard_task_tenant WHERE tenant_id = ?")) {
			s.setString(1, crashed);
			assertThat(s.executeUpdate()).isEqualTo(1);
		}
		// A completed tenant moves: its mark stays on the old shard.
		String moved = doneFirst.stream().filter((t) -> !t.equals(crashed)).findFirst().orElseThrow();
		String from = this.tenancy.router().route(moved).shardId();
		String to = from.equals("shard-1") ? "shard-2" : "shard-1";
		this.tenancy.mover().moveAndWait(moved, to, MoveSettings.defaults());
		assertThat(this.tenancy.router().route(moved).shardId()).isEqualTo(to);

		Map<String, TenantTaskResult<Void>> second = this.tenancy.tenantTasks()
			.<Void>start(TenantTaskOptions.named("nightly-1").perShard(2), (tenant, connection) -> {
				insertNote(connection, tenant, "nightly-1");
				committed.computeIfAbsent(tenant, (t) -> new AtomicInteger()).incrementAndGet();
				return null;
			})
			.await();

		assertThat(second).hasSize(30);
		for (String tenant : this.tenants) {
			assertThat(committed.get(tenant)).as(tenant).hasValue(1);
			assertThat(notes(tenant)).as(tenant).isEqualTo(1);
			assertThat(second.get(tenant).status()).as(tenant)
				.isEqualTo(doneFirst.contains(tenant) ? Status.ALREADY_DONE : Status.DONE);
		}
		// The same name a third time runs nobody.
		AtomicInteger third = new AtomicInteger();
		Map<String, TenantTaskResult<Void>> again = this.tenancy.tenantTasks()
			.<Void>start(TenantTaskOptions.named("nightly-1"), (tenant, connection) -> {
				third.incrementAndGet();
				return null;
			})
			.await();
		assertThat(third).hasValue(0);
		assertThat(again.values()).allMatch((r) -> r.status() == Status.ALREADY_DONE);
	}

	@Test
	@DisplayName("a named run refuses to start when a shard's completion marks cannot be read")
	void namedRunNeedsEveryShard() {
		this.server.stop();
		assertThatThrownBy(() -> this.tenancy.tenantTasks()
			.start(TenantTaskOptions.named("nightly-2"), (tenant, connection) -> null))
			.isInstanceOf(ShardUnavailableException.class)
			.hasMessageContaining("shard-3");
	}

	@Test
	@DisplayName("a named run refuses to start while a shard another instance registered is not in this instance's "
			+ "topology (its completion marks could not be read)")
	void namedRunNeedsEveryRegisteredShard() throws SQLException {
		try (Connection c = this.tenancy.directoryDataSource().getConnection();
				PreparedStatement s = c.prepareStatement("INSERT INTO shard_registry (shard_id, state, jdbc_url, "
						+ "version, updated_at, updated_by) VALUES ('shard-9', 'ACTIVE', 'jdbc:h2:mem:elsewhere', 0, "
						+ "CURRENT_TIMESTAMP, 'another instance')")) {
			s.executeUpdate();
		}
		assertThatThrownBy(() -> this.tenancy.tenantTasks()
			.start(TenantTaskOptions.named("nightly-3"), (tenant, connection) -> null))
			.isInstanceOf(ShardUnavailableException.class)
			.hasMessageContaining("shard-9")
			.hasRootCauseMessage("Shard 'shard-9' is registered ACTIVE but not in this instance's topology, so its "
					+ "completion marks of run 'nightly-3' cannot be read; call TenantAdmin.syncShards() and resume "
					+ "again");
	}

	@Test
	@DisplayName("tenants moved while the run goes are processed exactly once, none skipped")
	void movesDuringRun() throws Exception {
		CountDownLatch firstMove = new CountDownLatch(1);
		AtomicReference<CompletableFuture<Void>> nextMove = new AtomicReference<>(new CompletableFuture<>());
		AtomicBoolean running = new AtomicBoolean(true);
		AtomicInteger movesDuringRun = new AtomicInteger();
		Map<String, AtomicInteger> committed = new ConcurrentHashMap<>();
		Thread mover = new Thread(() -> {
			int i = 0;
			while (running.get()) {
				String tenant = this.tenants.get((i * 7) % this.tenants.size());
				i++;
				String from = this.tenancy.router().route(tenant).shardId();
				String to = from.equals("shard-1") ? "shard-2" : "shard-1";
				try {
					this.tenancy.mover().moveAndWait(tenant, to, MoveSettings.defaults());
					if (running.get()) {
						movesDuringRun.incrementAndGet();
					}
					firstMove.countDown();
					nextMove.getAndSet(new CompletableFuture<>()).complete(null);
				}
				catch (RuntimeException ex) {
					// A move that fails leaves the tenant on its source; the run must cope either way.
				}
			}
		});
		mover.start();
		// Outside any tenant transaction: a move waits for the moving tenant's open transactions to end.
		assertThat(firstMove.await(30, TimeUnit.SECONDS)).isTrue();
		TenantTaskRun<Void> run = this.tenancy.tenantTasks()
			.start(TenantTaskOptions.named("moving").perShard(2), (tenant, connection) -> {
				awaitNextMove(nextMove);
				insertNote(connection, tenant, "moving");
				return null;
			});
		run.completion().thenRun(() -> running.set(false));
		Map<String, TenantTaskResult<Void>> results = run.await();
		running.set(false);
		mover.join(60_000);

		System.out.println("moves finished during the run: " + movesDuringRun.get());
		assertThat(movesDuringRun.get()).as("moves finished during the run").isGreaterThanOrEqualTo(1);
		assertThat(results).hasSize(30);
		for (String tenant : this.tenants) {
			assertThat(results.get(tenant).status()).as(tenant + ": " + results.get(tenant)).isEqualTo(Status.DONE);
			assertThat(notes(tenant)).as(tenant).isEqualTo(1);
			assertThat(marks("moving", tenant)).as(tenant).isEqualTo(1);
		}
	}

	@Test
	@DisplayName("scatter-gather merges every shard's rows; a shard down gives partial rows and its error")
	void scatterGather() throws Exception {
		for (String tenant : this.tenants) {
			TenantContext.callAs(tenant, () -> {
				try (Connection c = this.tenancy.dataSource().getConnection()) {
					insertNote(c, tenant, "report");
				}
				return null;
			});
		}
		String sql = "SELECT tenant_id, COUNT(*) FROM note WHERE body = ? GROUP BY tenant_id";
		ShardQueryResult<String> all = this.tenancy.tenantTasks()
			.queryAllShards(sql, List.of("report"), (shard, row) -> shard + "/" + row.getString(1) + "=" + row.getLong(2),
					Duration.ofSeconds(10));
		assertThat(all.complete()).isTrue();
		assertThat(all.rows()).hasSize(30).contains("shard-1/t-0=1", "shard-2/t-1=1", "shard-3/t-2=1");
		assertThat(all.shards().keySet()).containsExactly("shard-1", "shard-2", "shard-3");

		this.server.stop();
		ShardQueryResult<String> partial = this.tenancy.tenantTasks()
			.queryAllShards(sql, List.of("report"), (shard, row) -> row.getString(1), Duration.ofSeconds(10));
		assertThat(partial.complete()).isFalse();
		assertThat(partial.rows()).hasSize(20);
		assertThat(partial.shards().get("shard-3").outcome()).isEqualTo(ShardQueryResult.Outcome.FAILED);
		assertThat(partial.shards().get("shard-3").error()).isInstanceOf(ShardUnavailableException.class);
		assertThat(partial.shards().get("shard-1").outcome()).isEqualTo(ShardQueryResult.Outcome.OK);
		assertThat(partial.shards().get("shard-1").rows()).isEqualTo(10);
	}

	@Test
	@DisplayName("scatter-gather honours its time limit: a slow shard is reported timed out, the others answer")
	void scatterGatherTimeLimit() throws Exception {
		for (String shardId : List.of("shard-1", "shard-2")) {
			execute(shardId, "CREATE ALIAS PAUSE FOR 'java.lang.Math.abs(long)'");
		}
		execute("shard-3", "CREATE ALIAS PAUSE FOR 'java.lang.Thread.sleep(long)'");
		long start = System.nanoTime();
		ShardQueryResult<Long> result = this.tenancy.tenantTasks()
			.queryAllShards("SELECT PAUSE(?) AS p, (SELECT COUNT(*) FROM note) AS n", List.of(20_000L),
					(shard, row) -> row.getLong(2), Duration.ofMillis(500));
		Duration took = Duration.ofNanos(System.nanoTime() - start);

		assertThat(result.shards().get("shard-3").outcome()).isEqualTo(ShardQueryResult.Outcome.TIMED_OUT);
		assertThat(result.shards().get("shard-1").outcome()).isEqualTo(ShardQueryResult.Outcome.OK);
		assertThat(result.shards().get("shard-2").outcome()).isEqualTo(ShardQueryResult.Outcome.OK);
		assertThat(result.rows()).hasSize(2);
		// The answer came before the slow shard's 20 s pause could end.
		assertThat(took).isLessThan(Duration.ofSeconds(20));
	}

	@Test
	@DisplayName("scatter-gather runs only reads: one statement starting with SELECT or WITH, a ';' inside quotes or "
			+ "at the end allowed, a second statement refused before anything runs")
	void scatterGatherOnlyReads() {
		assertThatThrownBy(() -> this.tenancy.tenantTasks()
			.queryAllShards("DELETE FROM note", List.of(), (shard, row) -> null, Duration.ofSeconds(1)))
			.isInstanceOf(IllegalArgumentException.class)
			.hasMessageContaining("SELECT or WITH");
		ShardQueryResult<Long> before = this.tenancy.tenantTasks()
			.queryAllShards("SELECT COUNT(*) FROM note WHERE body <> 'a;b' -- ; \n;", List.of(),
					(shard, row) -> row.getLong(1), Duration.ofSeconds(10));
		assertThat(before.complete()).isTrue();
		for (String sql : List.of("SELECT 1; DELETE FROM note", "SELECT 1; DELETE FROM note; COMMIT",
				"WITH x AS (SELECT 1) SELECT * FROM x; DROP TABLE note")) {
			assertThatThrownBy(() -> this.tenancy.tenantTasks()
				.queryAllShards(sql, List.of(), (shard, row) -> null, Duration.ofSeconds(1)))
				.as(sql)
				.isInstanceOf(IllegalArgumentException.class)
				.hasMessageContaining("';'");
		}
		ShardQueryResult<Long> after = this.tenancy.tenantTasks()
			.queryAllShards("SELECT COUNT(*) FROM note", List.of(), (shard, row) -> row.getLong(1),
					Duration.ofSeconds(10));
		assertThat(after.rows()).isEqualTo(before.rows());
	}

	private static void insertNote(Connection connection, String tenant, String body) throws SQLException {
		try (PreparedStatement s = connection
			.prepareStatement("INSERT INTO note (id, tenant_id, body) VALUES (?, ?, ?)")) {
			s.setObject(1, UUID.randomUUID());
			s.setString(2, tenant);
			s.setString(3, body);
			s.executeUpdate();
		}
	}

	/** The tenant's notes, read through its own routed connection (where its data lives now). */
	private long notes(String tenant) throws Exception {
		return TenantContext.callAs(tenant, () -> {
			try (Connection c = this.tenancy.dataSource().getConnection();
					PreparedStatement s = c.prepareStatement("SELECT COUNT(*) FROM note WHERE tenant_id = ?")) {
				s.setString(1, tenant);
				try (ResultSet rs = s.executeQuery()) {
					rs.next();
					return rs.getLong(1);
				}
			}
		});
	}

	/** The tenant's completion marks of a run, over every shard. */
	private long marks(String run, String tenant) throws SQLException {
		long marks = 0;
		for (String shardId : this.tenancy.topology().shardIds()) {
			try (Connection c = this.tenancy.topology().dataSource(shardId).getConnection();
					PreparedStatement s = c
						.prepareStatement("SELECT COUNT(*) FROM shard_task_log WHERE run_name = ? AND tenant_id = ?")) {
				s.setString(1, run);
				s.setString(2, tenant);
				try (ResultSet rs = s.executeQuery()) {
					rs.next();
					marks += rs.getLong(1);
				}
			}
		}
		return marks;
	}

	private void execute(String shardId, String sql) throws SQLException {
		try (Connection c = this.tenancy.topology().dataSource(shardId).getConnection();
				Statement s = c.createStatement()) {
			s.execute(sql);
		}
	}

	private String memUrl(String database) {
		return "jdbc:h2:mem:" + this.name + "-" + database + ";DB_CLOSE_DELAY=-1;LOCK_TIMEOUT=10000";
	}

	private static HikariConfig pool(String url) {
		HikariConfig config = new HikariConfig();
		config.setJdbcUrl(url);
		config.setMaximumPoolSize(6);
		config.setConnectionTimeout(1_000);
		config.setInitializationFailTimeout(-1);
		return config;
	}

	private static void shutdown(String url) {
		try (Connection c = java.sql.DriverManager.getConnection(url); Statement s = c.createStatement()) {
			s.execute("SHUTDOWN");
		}
		catch (SQLException ex) {
			// already gone
		}
	}

	/**
	 * Holds a tenant's work until the mover finishes its next move, at most a second: the moves then run while the
	 * tenants are being processed, and a move of the tenant whose transaction waits here (it waits for that
	 * transaction to end) goes on after the second.
	 */
	private static void awaitNextMove(AtomicReference<CompletableFuture<Void>> nextMove) throws Exception {
		try {
			nextMove.get().get(1, TimeUnit.SECONDS);
		}
		catch (TimeoutException ex) {
			// The mover is moving this very tenant, or is slow; go on.
		}
	}

}
