package io.github.shardtenancy.postgresql.tasks;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;

import javax.sql.DataSource;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import io.github.shardtenancy.MoveSettings;
import io.github.shardtenancy.ReferenceStatement;
import io.github.shardtenancy.ShardQueryResult;
import io.github.shardtenancy.ShardTenancy;
import io.github.shardtenancy.ShardUnavailableException;
import io.github.shardtenancy.TenantContext;
import io.github.shardtenancy.TenantTable;
import io.github.shardtenancy.TenantTaskOptions;
import io.github.shardtenancy.TenantTaskResult;
import io.github.shardtenancy.TenantTaskResult.Status;
import io.github.shardtenancy.liquibase.ShardTenancyMigrations;
import io.github.shardtenancy.testing.pg.ScratchPostgres;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

/**
 * {@link ShardTenancy#tenantTasks()} on embedded PostgreSQL: the directory and shard 1 on one server, shard 2 on a
 * second server that the test stops for real. A named run over 24 tenants while online moves run processes each
 * tenant exactly once; its resume runs nobody; a scatter-gather query merges both shards, honours its time limit
 * (the slow shard's statement is cancelled on the server) and returns partial rows when shard 2's server is down.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@DisplayName("Tenant tasks on PostgreSQL: once per tenant under online moves; scatter-gather with a server down")
class PostgresTenantTasksTest {

	private static final String CHANGELOG = "db/testing/pets.xml";

	private ScratchPostgres first;

	private ScratchPostgres second;

	private HikariDataSource shard2;

	private ShardTenancy tenancy;

	private final List<String> tenants = new ArrayList<>();

	@BeforeAll
	void start() throws SQLException {
		this.first = ScratchPostgres.start("tasks-1");
		this.second = ScratchPostgres.start("tasks-2");
		DataSource directory = this.first.createDatabase("directory", 4);
		DataSource shard1 = this.first.createDatabase("shard1", 6);
		this.second.createDatabase("shard2", 1).close();
		HikariConfig config = new HikariConfig();
		config.setJdbcUrl(this.second.server().jdbcUrl().replace("/postgres", "/shard2"));
		config.setUsername(this.second.server().user());
		config.setPassword(this.second.server().password());
		config.setMaximumPoolSize(6);
		config.setConnectionTimeout(1_000);
		config.setInitializationFailTimeout(-1);
		this.shard2 = new HikariDataSource(config);
		this.tenancy = ShardTenancy.builder()
			.directory(directory)
			.shard("shard-1", shard1)
			.shard("shard-2", (DataSource) this.shard2)
			.tenantTables(List.of(new TenantTable("pet", "tenant_id")))
			.referenceTables(List.of("pet_type"))
			.actor("tasks@pg")
			.build();
		ShardTenancyMigrations.migrateDirectory(directory);
		ShardTenancyMigrations.migrateShard(shard1, "shard-1", List.of(CHANGELOG));
		ShardTenancyMigrations.migrateShard(this.shard2, "shard-2", List.of(CHANGELOG));
		this.tenancy.start();
		this.tenancy.referenceTables()
			.write(List.of(ReferenceStatement.of("INSERT INTO pet_type (id, name) VALUES (?, ?)", 1, "cat")));
		for (int i = 0; i < 24; i++) {
			String tenant = "pg-" + i;
			this.tenancy.admin().create(tenant, (i % 2 == 0) ? "shard-1" : "shard-2");
			this.tenants.add(tenant);
		}
	}

	@AfterAll
	void stop() {
		if (this.tenancy != null) {
			this.tenancy.close();
		}
		if (this.shard2 != null) {
			this.shard2.close();
		}
		if (this.second != null) {
			this.second.close();
		}
		if (this.first != null) {
			this.first.close();
		}
	}

	@Test
	@DisplayName("a named run under online moves, its resume, scatter-gather: time limit, then shard 2's server down")
	void acrossTenantsAndShards() throws Exception {
		// 1. A named run while tenants move back and forth online.
		CountDownLatch firstMove = new CountDownLatch(1);
		AtomicReference<CompletableFuture<Void>> nextMove = new AtomicReference<>(new CompletableFuture<>());
		AtomicBoolean running = new AtomicBoolean(true);
		AtomicInteger movesDuringRun = new AtomicInteger();
		Map<String, AtomicInteger> calls = new ConcurrentHashMap<>();
		Thread mover = new Thread(() -> {
			int i = 0;
			while (running.get()) {
				String tenant = this.tenants.get((i * 5) % this.tenants.size());
				i++;
				String to = this.tenancy.router().route(tenant).shardId().equals("shard-1") ? "shard-2" : "shard-1";
				try {
					this.tenancy.mover().moveAndWait(tenant, to, MoveSettings.defaults());
					if (running.get()) {
						movesDuringRun.incrementAndGet();
					}
					firstMove.countDown();
					nextMove.getAndSet(new CompletableFuture<>()).complete(null);
				}
				catch (RuntimeException ex) {
					// A failed move leaves the tenant on its source; the run must cope either way.
				}
			}
		});
		mover.start();
		// Outside any tenant transaction: a move waits for the moving tenant's open transactions to end.
		assertThat(firstMove.await(60, TimeUnit.SECONDS)).isTrue();
		long started = System.nanoTime();
		Map<String, TenantTaskResult<Void>> results = this.tenancy.tenantTasks()
			.<Void>start(TenantTaskOptions.named("pg-nightly").perShard(2), (tenant, connection) -> {
				awaitNextMove(nextMove);
				calls.computeIfAbsent(tenant, (t) -> new AtomicInteger()).incrementAndGet();
				try (PreparedStatement s = connection
					.prepareStatement("INSERT INTO pet (id, tenant_id, name, type_id) VALUES (?, ?, ?, 1)")) {
					s.setObject(1, UUID.randomUUID());
					s.setString(2, tenant);
					s.setString(3, "nightly");
					s.executeUpdate();
				}
				return null;
			})
			.await();
		long runMillis = Duration.ofNanos(System.nanoTime() - started).toMillis();
		running.set(false);
		mover.join(120_000);
		int retried = (int) calls.values().stream().filter((c) -> c.get() > 1).count();
		System.out.println("PostgreSQL run of 24 tenants: " + runMillis + " ms, moves finished during it: "
				+ movesDuringRun.get() + ", tenants whose work ran again after a rolled-back attempt: " + retried);

		assertThat(movesDuringRun.get()).as("moves finished during the run").isGreaterThanOrEqualTo(1);
		assertThat(results).hasSize(24);
		for (String tenant : this.tenants) {
			assertThat(results.get(tenant).status()).as(tenant + ": " + results.get(tenant)).isEqualTo(Status.DONE);
			assertThat(pets(tenant)).as(tenant).isEqualTo(1);
		}

		// 2. Resumed under the same name: nobody runs again.
		AtomicInteger again = new AtomicInteger();
		Map<String, TenantTaskResult<Void>> resumed = this.tenancy.tenantTasks()
			.<Void>start(TenantTaskOptions.named("pg-nightly"), (tenant, connection) -> {
				again.incrementAndGet();
				return null;
			})
			.await();
		assertThat(again).hasValue(0);
		assertThat(resumed.values()).allMatch((r) -> r.status() == Status.ALREADY_DONE);

		// 3. Scatter-gather: every tenant's pets over both shards (the current owner's rows; a move's source rows
		// are cleaned by then only if the clean delay passed, so count by tenant on its owner instead).
		ShardQueryResult<String> marks = this.tenancy.tenantTasks()
			.queryAllShards("SELECT tenant_id FROM shard_task_log WHERE run_name = ?", List.of("pg-nightly"),
					(shard, row) -> row.getString(1), Duration.ofSeconds(10));
		assertThat(marks.complete()).isTrue();
		assertThat(marks.rows()).containsExactlyInAnyOrderElementsOf(this.tenants);

		// 4. The time limit: shard 2 sleeps for 30 s, the answer comes after about 1 s, and the statement is
		// cancelled on shard 2's server.
		ShardQueryResult<String> slow = this.tenancy.tenantTasks()
			.queryAllShards("SELECT current_database()::text FROM pg_sleep(CASE WHEN current_database() = ? THEN 30 ELSE 0 END)",
					List.of("shard2"), (shard, row) -> row.getString(1), Duration.ofSeconds(1));
		assertThat(slow.shards().get("shard-1").outcome()).isEqualTo(ShardQueryResult.Outcome.OK);
		assertThat(slow.shards().get("shard-2").outcome()).isEqualTo(ShardQueryResult.Outcome.TIMED_OUT);
		assertThat(slow.rows()).containsExactly("shard1");
		assertThat(slow.elapsed()).isLessThan(Duration.ofSeconds(30));
		await().atMost(Duration.ofSeconds(10)).until(() -> sleepingOnShard2() == 0);

		// 5. Shard 2's server down: partial rows, its error; a named run refuses to start.
		this.second.close();
		this.second = null;
		ShardQueryResult<String> partial = this.tenancy.tenantTasks()
			.queryAllShards("SELECT DISTINCT tenant_id FROM pet", List.of(), (shard, row) -> row.getString(1),
					Duration.ofSeconds(10));
		assertThat(partial.complete()).isFalse();
		assertThat(partial.shards().get("shard-1").outcome()).isEqualTo(ShardQueryResult.Outcome.OK);
		assertThat(partial.shards().get("shard-2").outcome()).isEqualTo(ShardQueryResult.Outcome.FAILED);
		assertThat(partial.shards().get("shard-2").error()).isInstanceOf(ShardUnavailableException.class);
		assertThat(partial.rows()).isNotEmpty();
		assertThatThrownBy(() -> this.tenancy.tenantTasks()
			.start(TenantTaskOptions.named("pg-other"), (tenant, connection) -> null))
			.isInstanceOf(ShardUnavailableException.class)
			.hasMessageContaining("shard-2");
	}

	private long pets(String tenant) throws Exception {
		return TenantContext.callAs(tenant, () -> {
			try (Connection c = this.tenancy.dataSource().getConnection();
					PreparedStatement s = c.prepareStatement("SELECT COUNT(*) FROM pet WHERE tenant_id = ?")) {
				s.setString(1, tenant);
				try (ResultSet rs = s.executeQuery()) {
					rs.next();
					return rs.getLong(1);
				}
			}
		});
	}

	private int sleepingOnShard2() throws SQLException {
		try (Connection c = this.shard2.getConnection();
				PreparedStatement s = c.prepareStatement(
						"SELECT COUNT(*) FROM pg_stat_activity WHERE state = 'active' AND query LIKE '%pg_sleep%' AND pid <> pg_backend_pid()")) {
			try (ResultSet rs = s.executeQuery()) {
				rs.next();
				return rs.getInt(1);
			}
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
