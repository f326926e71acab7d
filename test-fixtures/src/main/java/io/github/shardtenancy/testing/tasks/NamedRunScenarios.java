package io.github.shardtenancy.testing.tasks;

import java.io.PrintWriter;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.SQLFeatureNotSupportedException;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.logging.Logger;

import javax.sql.DataSource;

import io.github.shardtenancy.MoveSettings;
import io.github.shardtenancy.ShardQueryResult;
import io.github.shardtenancy.ShardTenancy;
import io.github.shardtenancy.TenantTable;
import io.github.shardtenancy.TenantTaskLeaseLostException;
import io.github.shardtenancy.TenantTaskOptions;
import io.github.shardtenancy.TenantTaskResult;
import io.github.shardtenancy.TenantTaskResult.Status;
import io.github.shardtenancy.TenantTaskRun;
import io.github.shardtenancy.TenantTaskRunLeasedException;
import io.github.shardtenancy.TenantWork;
import io.github.shardtenancy.liquibase.ShardTenancyMigrations;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

/**
 * Named tenant task runs with real faults, several instances (each its own {@code ShardTenancy} over the same
 * databases) and real moves: an instance whose work hangs while its connection to the directory is lost (it looks
 * dead), another instance resuming the run, the tenant moving, the first instance waking; a second run of a name
 * while the first holds it; a resume after a crash; instances killed and resumed repeatedly while tenants move. Each
 * ends with every tenant's work committed exactly once, counted as the work's own rows ({@code task_note}) on every
 * shard. Subclasses give the databases.
 */
public abstract class NamedRunScenarios {

	/** A short lease, so that a lapse takes about a second. */
	private static final Duration LEASE = Duration.ofMillis(1200);

	private static final List<String> TENANTS = List.of("t-0", "t-1", "t-2", "t-3", "t-4", "t-5", "t-6", "t-7");

	private DataSource directory;

	private final Map<String, DataSource> shards = new LinkedHashMap<>();

	private ShardTenancy tenancy;

	private final List<ShardTenancy> instances = new ArrayList<>();

	private final List<ExecutorService> executors = new ArrayList<>();

	private final List<CountDownLatch> hangs = new ArrayList<>();

	/** @return a new, empty directory database */
	protected abstract DataSource directory();

	/**
	 * @param shardId the shard's id
	 * @return a new, empty shard database, its pool with at least 10 connections
	 */
	protected abstract DataSource shard(String shardId);

	/** Closes what {@link #directory()} and {@link #shard(String)} opened. */
	protected abstract void closeDatabases();

	@BeforeEach
	void start() throws SQLException {
		this.directory = directory();
		ShardTenancyMigrations.migrateDirectory(this.directory);
		for (String shardId : List.of("shard-1", "shard-2")) {
			DataSource shard = shard(shardId);
			this.shards.put(shardId, shard);
			ShardTenancyMigrations.migrateShard(shard, shardId, List.of());
			try (Connection c = shard.getConnection(); Statement s = c.createStatement()) {
				s.execute("CREATE TABLE task_note (id VARCHAR(36) PRIMARY KEY, tenant_id VARCHAR(64) NOT NULL, "
						+ "run_name VARCHAR(200) NOT NULL)");
			}
		}
		this.tenancy = instance("A", this.directory);
		for (int i = 0; i < TENANTS.size(); i++) {
			// t-0, t-1 on shard-1, t-2, t-3 on shard-2, t-4, t-5 on shard-1, ...
			this.tenancy.admin().create(TENANTS.get(i), ((i / 2) % 2 == 0) ? "shard-1" : "shard-2");
		}
	}

	@AfterEach
	void stop() {
		this.hangs.forEach(CountDownLatch::countDown);
		this.executors.forEach(ExecutorService::shutdownNow);
		this.instances.forEach(ShardTenancy::close);
		closeDatabases();
	}

	@Test
	@DisplayName("an instance hangs and looks dead, another resumes the run and commits a tenant, the tenant moves, "
			+ "the first wakes: the tenant's work is committed once, and the late attempt fails typed")
	void hangingInstanceAndMove() throws Exception {
		Sleeper b = sleeper("B");
		TenantTaskRun<Void> runOfB = b.instance().tenantTasks()
			.start(options("nightly").tenants(List.of("t-0", "t-1")), b.hangingAt("t-0"));
		// B looks dead: its work for t-0 hangs and nothing of it reaches the directory.
		b.hangs();

		Map<String, TenantTaskResult<Void>> ofA = startOnceLapsed(this.tenancy,
				options("nightly").tenants(List.of("t-1")), this::noteWork)
			.await();
		assertThat(ofA.get("t-1").status()).as(String.valueOf(ofA.get("t-1"))).isEqualTo(Status.DONE);
		assertThat(ofA.get("t-1").shardId()).isEqualTo("shard-1");
		this.tenancy.mover().moveAndWait("t-1", "shard-2", MoveSettings.defaults());
		assertThat(this.tenancy.router().route("t-1").shardId()).isEqualTo("shard-2");

		b.wakes();
		assertThat(runOfB.await(Duration.ofSeconds(60))).isTrue();
		Map<String, TenantTaskResult<Void>> ofB = runOfB.results();

		assertThat(notes("t-1")).as("t-1's work committed, over every shard").isEqualTo(1);
		assertThat(marks("nightly", "t-1")).as("t-1's completion marks, over every shard").isEqualTo(1);
		assertLeaseLost(ofB.get("t-1"), "nightly");
		// B lost its lease while t-0's work hung: that work is not committed either.
		assertLeaseLost(ofB.get("t-0"), "nightly");
		assertThat(notes("t-0")).isZero();

		// Resumed again: t-0 runs, t-1 is done; both once.
		Map<String, TenantTaskResult<Void>> third = startOnceLapsed(this.tenancy,
				options("nightly").tenants(List.of("t-0", "t-1")), this::noteWork)
			.await();
		assertThat(third.get("t-0").status()).isEqualTo(Status.DONE);
		assertThat(third.get("t-1").status()).isEqualTo(Status.ALREADY_DONE);
		assertThat(notes("t-0")).isEqualTo(1);
		assertThat(notes("t-1")).isEqualTo(1);
	}

	@Test
	@DisplayName("a second run of a name is refused while the first holds its lease, from another instance and the "
			+ "same one; once the first ended, the name resumes at once")
	void secondRunRefusedWhileLeased() throws Exception {
		CountDownLatch entered = new CountDownLatch(1);
		CountDownLatch release = hang();
		TenantTaskRun<Void> first = this.tenancy.tenantTasks()
			.start(options("weekly"), (tenant, connection) -> {
				entered.countDown();
				assertThat(release.await(120, TimeUnit.SECONDS)).isTrue();
				note(connection, tenant, "weekly");
				return null;
			});
		assertThat(entered.await(30, TimeUnit.SECONDS)).isTrue();
		// Longer than the lease: the heartbeat keeps it.
		Thread.sleep(LEASE.toMillis() * 2);
		ShardTenancy b = instance("B", this.directory);
		AtomicInteger ranByB = new AtomicInteger();
		assertThatThrownBy(() -> b.tenantTasks().start(options("weekly"), (tenant, connection) -> {
			ranByB.incrementAndGet();
			return null;
		})).satisfies((ex) -> assertLeased(ex, "weekly"));
		assertThatThrownBy(() -> this.tenancy.tenantTasks().start(options("weekly"), this::noteWork))
			.satisfies((ex) -> assertLeased(ex, "weekly"));
		assertThat(ranByB).hasValue(0);

		release.countDown();
		Map<String, TenantTaskResult<Void>> results = first.await();
		assertThat(results.values()).allMatch((r) -> r.status() == Status.DONE);
		Map<String, TenantTaskResult<Void>> again = b.tenantTasks()
			.start(options("weekly"), this::noteWork)
			.await();
		assertThat(again.values()).allMatch((r) -> r.status() == Status.ALREADY_DONE);
		for (String tenant : TENANTS) {
			assertThat(notes(tenant)).as(tenant).isEqualTo(1);
		}
	}

	@Test
	@DisplayName("a run that crashed is resumed once its lease lapsed: only the tenants not done run, and the "
			+ "crashed instance's late work fails typed, committing nothing")
	void resumeAfterLapse() throws Exception {
		Sleeper b = sleeper("B");
		// Per shard one at a time: shard-1's queue is t-0, t-1, t-4, t-5 and hangs at t-4; shard-2's finishes.
		TenantTaskRun<Void> crashed = b.instance().tenantTasks().start(options("monthly"), b.hangingAt("t-4"));
		await().atMost(Duration.ofSeconds(30)).until(() -> crashed.results().size() == 6);
		b.hangs();

		Map<String, AtomicInteger> ran = new ConcurrentHashMap<>();
		Map<String, TenantTaskResult<Void>> resumed = startOnceLapsed(this.tenancy, options("monthly"),
				(tenant, connection) -> {
					ran.computeIfAbsent(tenant, (t) -> new AtomicInteger()).incrementAndGet();
					return noteWork(tenant, connection);
				})
			.await();
		assertThat(ran.keySet()).containsExactlyInAnyOrder("t-4", "t-5");
		for (String tenant : TENANTS) {
			assertThat(resumed.get(tenant).status()).as(tenant)
				.isEqualTo(tenant.equals("t-4") || tenant.equals("t-5") ? Status.DONE : Status.ALREADY_DONE);
		}

		b.wakes();
		assertThat(crashed.await(Duration.ofSeconds(60))).isTrue();
		assertLeaseLost(crashed.results().get("t-4"), "monthly");
		assertLeaseLost(crashed.results().get("t-5"), "monthly");
		for (String tenant : TENANTS) {
			assertThat(notes(tenant)).as(tenant).isEqualTo(1);
			assertThat(marks("monthly", tenant)).as(tenant).isEqualTo(1);
		}
	}

	@Test
	@DisplayName("a named run killed (instance closed, workers interrupted) or hung, and resumed, again and again "
			+ "while tenants move: every tenant's work committed exactly once")
	void killedAndResumedWhileMoving() throws Exception {
		AtomicBoolean moving = new AtomicBoolean(true);
		AtomicInteger moves = new AtomicInteger();
		// Tenants whose transaction hangs: a move of one would wait for that transaction, so the mover leaves them
		// alone, and a tenant being moved does not hang (both decided under the lock of the set).
		Set<String> hanging = new java.util.HashSet<>();
		AtomicReference<@Nullable String> movingNow = new AtomicReference<>();
		Thread mover = new Thread(() -> {
			int i = 0;
			while (moving.get()) {
				String tenant = TENANTS.get((i * 3) % TENANTS.size());
				i++;
				synchronized (hanging) {
					if (hanging.contains(tenant)) {
						continue;
					}
					movingNow.set(tenant);
				}
				try {
					String to = this.tenancy.router().route(tenant).shardId().equals("shard-1") ? "shard-2"
							: "shard-1";
					this.tenancy.mover().moveAndWait(tenant, to, MoveSettings.defaults());
					moves.incrementAndGet();
				}
				catch (RuntimeException ex) {
					// A move that fails leaves the tenant on its source.
				}
				finally {
					synchronized (hanging) {
						movingNow.set(null);
					}
				}
			}
		}, "named-run-mover");
		mover.start();
		List<Runnable> wakes = new ArrayList<>();
		List<TenantTaskRun<Void>> hungRuns = new ArrayList<>();
		for (int round = 0; round < 6; round++) {
			Severable severable = new Severable(this.directory);
			ShardTenancy instance = instance("K" + round, severable);
			ExecutorService executor = Executors.newFixedThreadPool(2);
			this.executors.add(executor);
			boolean hangs = round % 2 == 1;
			CountDownLatch wake = hang();
			AtomicInteger started = new AtomicInteger();
			AtomicBoolean hung = new AtomicBoolean();
			TenantTaskRun<Void> run = startOnceLapsed(instance, options("soak").executor(executor),
					(tenant, connection) -> {
						int n = started.incrementAndGet();
						note(connection, tenant, "soak");
						boolean hang;
						synchronized (hanging) {
							hang = hangs && n >= 2 && !tenant.equals(movingNow.get()) && hung.compareAndSet(false, true)
									&& hanging.add(tenant);
						}
						if (hang) {
							// An instance that only looks dead, in the middle of a tenant's transaction.
							wake.await(120, TimeUnit.SECONDS);
							synchronized (hanging) {
								hanging.remove(tenant);
							}
						}
						else {
							Thread.sleep(150);
						}
						return null;
					});
			await().atMost(Duration.ofSeconds(30))
				.until(() -> run.progress().finished() || (hangs ? hung.get() : started.get() >= 3));
			if (hangs) {
				severable.sever();
				hungRuns.add(run);
				wakes.add(() -> {
					severable.restore();
					wake.countDown();
				});
			}
			else {
				// Killed: the workers interrupted, the instance closed.
				executor.shutdownNow();
				instance.close();
			}
			// Tenants move before the next instance resumes the run, and before a hung instance wakes.
			int before = moves.get();
			await().atMost(Duration.ofSeconds(90)).until(() -> moves.get() >= before + 2);
			if (wakes.size() > 1) {
				// The oldest hung instance wakes after others resumed the run and tenants moved.
				wakes.remove(0).run();
			}
		}
		wakes.forEach(Runnable::run);
		for (TenantTaskRun<Void> run : hungRuns) {
			assertThat(run.await(Duration.ofSeconds(60))).isTrue();
		}
		Map<String, TenantTaskResult<Void>> last = startOnceLapsed(this.tenancy, options("soak"), this::noteWork)
			.await();
		for (int i = 0; i < 4 && !last.values().stream().allMatch(NamedRunScenarios::completed); i++) {
			last = startOnceLapsed(this.tenancy, options("soak"), this::noteWork).await();
		}
		moving.set(false);
		mover.join(120_000);
		System.out.println("killed and resumed: moves " + moves.get() + ", last resume " + last);

		assertThat(moves.get()).as("moves during the rounds").isPositive();
		assertThat(last).hasSize(TENANTS.size());
		assertThat(last.values()).allMatch(NamedRunScenarios::completed);
		for (String tenant : TENANTS) {
			assertThat(notes(tenant)).as(tenant).isEqualTo(1);
			assertThat(marks("soak", tenant)).as(tenant).isEqualTo(1);
		}
	}

	private static boolean completed(TenantTaskResult<?> result) {
		return result.status() == Status.DONE || result.status() == Status.ALREADY_DONE;
	}

	/** @return the options of a named run of these tests: a short lease */
	private static TenantTaskOptions options(String name) {
		return TenantTaskOptions.named(name).lease(LEASE);
	}

	/** Asserts that a run's attempt at a tenant failed, typed, because the run had lost its lease. */
	private static void assertLeaseLost(@Nullable TenantTaskResult<?> result, String name) {
		assertThat(result).isNotNull();
		assertThat(result.status()).as(String.valueOf(result)).isEqualTo(Status.FAILED);
		assertThat(result.error()).isInstanceOfSatisfying(TenantTaskLeaseLostException.class, (lost) -> {
			assertThat(lost.runName()).isEqualTo(name);
			assertThat(lost.tenantId()).isEqualTo(result.tenantId());
			assertThat(lost.getMessage()).contains(name, result.tenantId(), "token " + lost.token());
		});
	}

	/** Asserts that a start was refused because another run of the name holds its lease, named in the error. */
	private static void assertLeased(Throwable refused, String name) {
		assertThat(refused).isInstanceOfSatisfying(TenantTaskRunLeasedException.class, (leased) -> {
			assertThat(leased.runName()).isEqualTo(name);
			assertThat(leased.holder()).contains("@");
			assertThat(leased.leaseUntil()).isAfter(Instant.now());
			assertThat(leased.getMessage()).contains(name, leased.holder(), leased.leaseUntil().toString());
		});
	}

	/** Starts a named run once no other run of its name holds the lease. */
	private TenantTaskRun<Void> startOnceLapsed(ShardTenancy instance, TenantTaskOptions options,
			TenantWork<Void> work) {
		AtomicReference<TenantTaskRun<Void>> run = new AtomicReference<>();
		await().atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(100)).until(() -> {
			try {
				run.set(instance.tenantTasks().start(options, work));
				return true;
			}
			catch (RuntimeException ex) {
				if (ex instanceof TenantTaskRunLeasedException) {
					return false;
				}
				throw ex;
			}
		});
		return run.get();
	}

	private ShardTenancy instance(String name, DataSource directory) {
		var builder = ShardTenancy.builder().directory(directory);
		this.shards.forEach(builder::shard);
		ShardTenancy instance = builder.tenantTables(List.of(new TenantTable("task_note", "tenant_id")))
			.actor(name + "@named-runs")
			.build();
		instance.start();
		this.instances.add(instance);
		return instance;
	}

	private CountDownLatch hang() {
		CountDownLatch latch = new CountDownLatch(1);
		this.hangs.add(latch);
		return latch;
	}

	/** @return a new instance over a directory connection that can be severed, with the latches of a hang */
	private Sleeper sleeper(String name) {
		Severable directory = new Severable(this.directory);
		return new Sleeper(directory, instance(name, directory), new CountDownLatch(1), hang());
	}

	/**
	 * An instance whose work hangs for one tenant, in the middle of its transaction, and which then looks dead: its
	 * connection to the directory severed, until it wakes.
	 */
	private record Sleeper(Severable directory, ShardTenancy instance, CountDownLatch entered, CountDownLatch wake) {

		/** @return work that notes every tenant, and for one first says it entered and waits to be woken */
		TenantWork<Void> hangingAt(String hanging) {
			return (tenant, connection) -> {
				if (tenant.equals(hanging)) {
					this.entered.countDown();
					assertThat(this.wake.await(120, TimeUnit.SECONDS)).isTrue();
				}
				note(connection, tenant, "work");
				return null;
			};
		}

		/** Waits until the work hangs, then severs the directory. */
		void hangs() throws InterruptedException {
			assertThat(this.entered.await(30, TimeUnit.SECONDS)).isTrue();
			this.directory.sever();
		}

		/** Restores the directory, then wakes the work. */
		void wakes() {
			this.directory.restore();
			this.wake.countDown();
		}

	}

	private @Nullable Void noteWork(String tenant, Connection connection) throws SQLException {
		note(connection, tenant, "work");
		return null;
	}

	private static void note(Connection connection, String tenant, String run) throws SQLException {
		try (PreparedStatement s = connection
			.prepareStatement("INSERT INTO task_note (id, tenant_id, run_name) VALUES (?, ?, ?)")) {
			s.setString(1, UUID.randomUUID().toString());
			s.setString(2, tenant);
			s.setString(3, run);
			s.executeUpdate();
		}
	}

	/** @return the tenant's notes over every shard, read as library maintenance (every tenant's rows) */
	private long notes(String tenant) {
		return count("SELECT COUNT(*) FROM task_note WHERE tenant_id = ?", List.of(tenant));
	}

	/** @return the tenant's completion marks of a run over every shard */
	private long marks(String run, String tenant) {
		return count("SELECT COUNT(*) FROM shard_task_log WHERE run_name = ? AND tenant_id = ?", List.of(run, tenant));
	}

	private long count(String sql, List<?> parameters) {
		ShardQueryResult<Long> counts = this.tenancy.tenantTasks()
			.queryAllShards(sql, parameters, (shard, row) -> row.getLong(1), Duration.ofSeconds(30));
		assertThat(counts.complete()).as(String.valueOf(counts.shards())).isTrue();
		return counts.rows().stream().mapToLong(Long::longValue).sum();
	}

	/** A directory data source whose connections can be cut off: the instance using it looks dead to the others. */
	static final class Severable implements DataSource {

		private final DataSource delegate;

		private volatile boolean severed;

		Severable(DataSource delegate) {
			this.delegate = delegate;
		}

		void sever() {
			this.severed = true;
		}

		void restore() {
			this.severed = false;
		}

		@Override
		public Connection getConnection() throws SQLException {
			if (this.severed) {
				throw new SQLException("The directory cannot be reached (severed by the test)", "08001");
			}
			return this.delegate.getConnection();
		}

		@Override
		public Connection getConnection(String username, String password) throws SQLException {
			return getConnection();
		}

		@Override
		public PrintWriter getLogWriter() throws SQLException {
			return this.delegate.getLogWriter();
		}

		@Override
		public void setLogWriter(PrintWriter out) throws SQLException {
			this.delegate.setLogWriter(out);
		}

		@Override
		public void setLoginTimeout(int seconds) throws SQLException {
			this.delegate.setLoginTimeout(seconds);
		}

		@Override
		public int getLoginTimeout() throws SQLException {
			return this.delegate.getLoginTimeout();
		}

		@Override
		public Logger getParentLogger() throws SQLFeatureNotSupportedException {
			return this.delegate.getParentLogger();
		}

		@Override
		public <T> T unwrap(Class<T> type) throws SQLException {
			if (type.isInstance(this)) {
				return type.cast(this);
			}
			throw new SQLException("Not a wrapper of " + type);
		}

		@Override
		public boolean isWrapperFor(Class<?> type) {
			return type.isInstance(this);
		}

	}

}
