package io.github.shardtenancy.it.moves;

import java.sql.Array;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Random;
import java.util.Set;
import java.util.TreeMap;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.LongAdder;

import com.zaxxer.hikari.HikariDataSource;
import io.github.shardtenancy.RerunMismatchException;
import io.github.shardtenancy.RetriesExhaustedException;
import io.github.shardtenancy.ShardConnectionLostException;
import io.github.shardtenancy.ShardTenancyException;
import io.github.shardtenancy.TenantContext;
import io.github.shardtenancy.boot.retry.ShardTenancyRetry;
import io.github.shardtenancy.DirectoryEntry;
import io.github.shardtenancy.MoveSettings;
import io.github.shardtenancy.MoveStatus;
import io.github.shardtenancy.MoveStep;
import io.github.shardtenancy.RouterSettings;
import io.github.shardtenancy.TenantState;
import io.github.shardtenancy.internal.move.Mover;
import io.github.shardtenancy.it.support.AppInstance;
import io.github.shardtenancy.it.support.PgNote;
import io.github.shardtenancy.it.support.PgNotes;
import io.github.shardtenancy.postgresql.WatcherSettings;
import io.github.shardtenancy.retry.RetryAttempts;
import io.github.shardtenancy.retry.RetrySettings;
import io.github.shardtenancy.testing.pg.PostgresCluster;
import org.awaitility.core.ConditionTimeoutException;
import org.hibernate.SessionFactory;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The chaos run: writers over many tenants on two application instances while, at moments chosen by a seeded
 * {@link Random}, tenants move (online mover), the directory server is stopped and restarted, a listener connection is
 * killed, a mover is killed after a step and resumed by another, and a shard server is restarted. At the end every
 * fault is healed and the invariants are checked for every tenant: the rows on the owner are exactly the committed
 * writes (plus, at most once, writes whose outcome the caller was told is unknown), no write is duplicated, no row of a
 * tenant is on a shard that does not own it, every caller either committed or got a typed error, and both routers
 * converged on the directory. It prints what it did and fails on any violation.
 *
 * <p>Besides the Hibernate writers, plain JDBC writers save a new note per call with the save shape of issue 33 ("id
 * null: set it, INSERT; else UPDATE"), on the tenant-routing DataSource through the retry: half of them undo the id
 * when an attempt fails ({@code RetryAttempts.onRollback}), so they must lose nothing and never be refused; the other
 * half do not, so a re-run of theirs is refused ({@code RerunMismatchException}, counted as refused: its row must not
 * exist), never acknowledged without its row.
 *
 * <p>Bounded for CI (45 s of chaos by default, about two minutes in all). System properties: {@code chaos.seconds} (longer runs),
 * {@code chaos.seed} (repeat a schedule: the seed is printed at the start and in the report), {@code chaos.tenants},
 * {@code chaos.writers}, {@code chaos.jdbc-writers} (default 2).
 */
@DisplayName("Chaos run on PostgreSQL: moves, directory and shard restarts, killed listeners and movers under load")
class PostgresChaosRunTest {

	static final Duration BOUND = Duration.ofSeconds(90);

	static final WatcherSettings WATCHING = WatcherSettings.defaults()
		.withPollInterval(Duration.ofSeconds(5))
		.withBackoff(Duration.ofMillis(100), Duration.ofMillis(500))
		.withConnectTimeout(Duration.ofSeconds(2));

	static final RetrySettings RETRY = new RetrySettings(6, Duration.ofMillis(10), 2.0, Duration.ofMillis(200),
			Duration.ofMillis(10), Duration.ofSeconds(15), true);

	enum Outcome {
		COMMITTED, FAILED, REFUSED, UNCERTAIN, UNTYPED
	}

	/** Who wrote: Hibernate ({@code persist}), or plain JDBC with the save shape of issue 33, with or without the undo. */
	enum Writer {
		HIBERNATE, JDBC_UNDO, JDBC_LOSSY
	}

	/** One write: a new note whose text is the write's id, so a retried attempt is recognisable. */
	record Write(String id, String tenant, Writer writer, Outcome outcome, String error) {
	}

	/** A note saved by plain JDBC ({@link #save}): new while its id is {@code null}. */
	static final class JdbcNote {

		UUID id;

		final String text;

		JdbcNote(String text) {
			this.text = text;
		}

	}

	/** A JDBC failure inside a retried unit of work, unchecked; its cause is the driver's exception. */
	static final class JdbcFailure extends RuntimeException {

		JdbcFailure(SQLException cause) {
			super(cause);
		}

	}

	/** Thrown by the move hook to kill a mover after a step, as a crash would. */
	static final class MoverKilled extends Error {

		MoverKilled(MoveStep step) {
			super("mover killed after " + step, null, false, false);
		}

	}

	final Map<String, LongAdder> counts = new ConcurrentHashMap<>();

	final Map<String, LongAdder> errors = new ConcurrentHashMap<>();

	final Queue<String> log = new Queue<>();

	void count(String what) {
		this.counts.computeIfAbsent(what, k -> new LongAdder()).increment();
	}

	long counted(String what) {
		LongAdder adder = this.counts.get(what);
		return adder != null ? adder.sum() : 0;
	}

	@Test
	@DisplayName("every committed write exists exactly once on its tenant's owner, nothing is misplaced or lost, every caller committed or got a typed error, and every router converged")
	void chaosRun() throws Exception {
		long seed = Long.getLong("chaos.seed", new Random().nextLong());
		Duration duration = Duration.ofSeconds(Long.getLong("chaos.seconds", 45));
		int tenantCount = Integer.getInteger("chaos.tenants", 24);
		int writerCount = Integer.getInteger("chaos.writers", 6);
		int jdbcWriterCount = Integer.getInteger("chaos.jdbc-writers", 2);
		System.out.println("[chaos] seed " + seed + " (repeat with -Dchaos.seed=" + seed + "), " + duration.toSeconds()
				+ " s, " + tenantCount + " tenants, " + writerCount + " writers, " + jdbcWriterCount
				+ " JDBC writers");
		Random chaos = new Random(seed);
		PostgresCluster cluster = PostgresCluster.shared();
		cluster.ensureAllRunning();

		List<String> tenants = new ArrayList<>();
		ExecutorService writers = Executors.newFixedThreadPool(writerCount + jdbcWriterCount);
		ExecutorService movers = Executors.newCachedThreadPool();
		AtomicBoolean stop = new AtomicBoolean();
		Queue<Write> writes = new Queue<>();
		Set<String> moving = ConcurrentHashMap.newKeySet();
		List<Future<?>> moveTasks = Collections.synchronizedList(new ArrayList<>());
		RouterSettings routerSettings = RouterSettings.defaults().withSyncInterval(Duration.ofSeconds(2));
		try (AppInstance operator = AppInstance.plain(cluster, "chaos-op", RouterSettings.defaults(), 4);
				AppInstance app1 = AppInstance.watched(cluster, "chaos-app1", routerSettings, 6, WATCHING, null);
				AppInstance app2 = AppInstance.watched(cluster, "chaos-app2", routerSettings, 6, WATCHING, null);
				HikariDataSource directoryAdmin = cluster.pool(cluster.directory(), 1, "chaos-admin");
				SessionFactory sessions1 = PgNotes.sessionFactory(app1);
				SessionFactory sessions2 = PgNotes.sessionFactory(app2)) {
			List<AppInstance> apps = List.of(app1, app2);
			List<SessionFactory> sessions = List.of(sessions1, sessions2);
			List<ShardTenancyRetry> retries = List.of(new ShardTenancyRetry(app1.router, app1.router.observer(), RETRY, List.of()),
					new ShardTenancyRetry(app2.router, app2.router.observer(), RETRY, List.of()));
			for (int i = 0; i < tenantCount; i++) {
				String tenant = PostgresCluster.tenant("chaos-" + i);
				tenants.add(tenant);
				operator.admin.create(tenant, PostgresCluster.SHARD_IDS.get(i % PostgresCluster.SHARD_IDS.size()));
			}
			for (AppInstance app : apps) {
				app.router.loadSnapshot();
			}
			Mover mover = new Mover(operator.directory, operator.router, operator.topology,
					List.of(PostgresCluster.NOTES), "chaos-mover", operator.moveExecutor);

			// Writers
			LongAdder attempts = new LongAdder();
			for (int w = 0; w < writerCount; w++) {
				Random mine = new Random(seed + w + 1);
				writers.submit(() -> {
					while (!stop.get()) {
						String tenant = tenants.get(mine.nextInt(tenants.size()));
						int a = mine.nextInt(apps.size());
						String id = UUID.randomUUID().toString();
						writes.add(write(id, tenant, sessions.get(a), retries.get(a), attempts));
						sleep(2 + mine.nextInt(10));
					}
					return null;
				});
			}
			for (int w = 0; w < jdbcWriterCount; w++) {
				Random mine = new Random(seed - w - 1);
				Writer writer = w % 2 == 0 ? Writer.JDBC_UNDO : Writer.JDBC_LOSSY;
				writers.submit(() -> {
					while (!stop.get()) {
						String tenant = tenants.get(mine.nextInt(tenants.size()));
						int a = mine.nextInt(apps.size());
						String id = UUID.randomUUID().toString();
						writes.add(jdbcWrite(id, tenant, writer, apps.get(a), retries.get(a), attempts));
						sleep(2 + mine.nextInt(10));
					}
					return null;
				});
			}

			// Chaos: one of each fault first (in a seeded order), then seeded random faults until the deadline.
			List<Integer> schedule = new ArrayList<>(List.of(0, 1, 2, 3, 4));
			Collections.shuffle(schedule, chaos);
			long deadline = System.nanoTime() + duration.toNanos();
			int step = 0;
			while (System.nanoTime() < deadline) {
				sleep(300 + chaos.nextInt(1500));
				// After the first round: moves half of the time, a third of them with a killed mover.
				int action = step < schedule.size() ? schedule.get(step)
						: new int[] { 0, 0, 1, 0, 2, 3, 4, 3 }[chaos.nextInt(8)];
				step++;
				switch (action) {
					case 0, 1 -> startMove(chaos, action == 1, tenants, moving, moveTasks, movers, mover, operator);
					case 2 -> {
						count("directory restarts");
						this.log.add("directory stopped");
						cluster.directory().stop();
						sleep(500 + chaos.nextInt(2000));
						cluster.directory().start();
						this.log.add("directory started");
					}
					case 3 -> {
						AppInstance app = apps.get(chaos.nextInt(apps.size()));
						int pid = app.watcher.status().listenerBackendPid();
						if (pid > 0) {
							try (Connection c = directoryAdmin.getConnection(); Statement st = c.createStatement()) {
								st.execute("SELECT pg_terminate_backend(" + pid + ")");
								count("listener kills");
								this.log.add("listener of " + app.name + " (pid " + pid + ") killed");
							}
							catch (SQLException ex) {
								this.log.add("listener kill failed: " + ex.getMessage());
							}
						}
					}
					case 4 -> {
						String shard = PostgresCluster.SHARD_IDS.get(chaos.nextInt(PostgresCluster.SHARD_IDS.size()));
						count("shard restarts");
						this.log.add(shard + " stopped");
						cluster.shard(shard).stop();
						sleep(300 + chaos.nextInt(1200));
						cluster.shard(shard).start();
						this.log.add(shard + " started");
					}
					default -> throw new IllegalStateException("action " + action);
				}
			}

			// Heal: stop the writers, bring every server back, finish every move.
			stop.set(true);
			writers.shutdown();
			assertThat(writers.awaitTermination(BOUND.toSeconds(), TimeUnit.SECONDS)).as("writers stopped").isTrue();
			cluster.ensureAllRunning();
			for (Future<?> task : List.copyOf(moveTasks)) {
				task.get(BOUND.toSeconds(), TimeUnit.SECONDS);
			}
			Mover healer = mover.withLease(Duration.ZERO);
			for (String tenant : tenants) {
				finishMove(healer, tenant);
			}
			for (AppInstance app : apps) {
				assertThat(app.watcher.awaitListening(BOUND)).as("watcher of %s listening", app.name).isTrue();
			}

			// Check.
			List<String> violations = new ArrayList<>();
			Map<String, DirectoryEntry> directory = new HashMap<>();
			for (String tenant : tenants) {
				DirectoryEntry entry = operator.directory.find(tenant).orElseThrow();
				directory.put(tenant, entry);
				if (entry.state() != TenantState.ACTIVE) {
					violations.add("tenant " + tenant + " left " + entry.state() + " after healing");
				}
			}
			long directoryVersion = operator.directory.currentVersion();
			for (AppInstance app : apps) {
				if (!converged(app, directory, directoryVersion)) {
					violations.add("router of " + app.name + " did not converge: version " + app.router.version()
							+ ", directory " + directoryVersion);
				}
			}
			Map<String, Map<String, Map<String, Integer>>> rows = new HashMap<>(); // shard -> tenant -> text -> count
			for (String shard : PostgresCluster.SHARD_IDS) {
				rows.put(shard, rowsOf(cluster, shard, tenants));
			}
			Map<String, Write> byId = new HashMap<>();
			for (Write write : writes.all()) {
				byId.put(write.id(), write);
				this.errors.computeIfAbsent(write.writer() + " " + write.outcome()
						+ (write.error() != null ? " " + write.error() : ""), k -> new LongAdder()).increment();
				if (write.outcome() == Outcome.UNTYPED) {
					violations.add("write " + write.id() + " of " + write.tenant() + " failed with an untyped error: "
							+ write.error());
				}
				if (write.outcome() == Outcome.REFUSED && write.writer() != Writer.JDBC_LOSSY) {
					violations.add("write " + write.id() + " of " + write.tenant() + " by " + write.writer()
							+ " was refused as a mismatched re-run: " + write.error());
				}
			}
			int duplicated = 0;
			int lost = 0;
			int misplaced = 0;
			int phantom = 0;
			for (String tenant : tenants) {
				String owner = directory.get(tenant).shardId();
				for (String shard : PostgresCluster.SHARD_IDS) {
					Map<String, Integer> texts = rows.get(shard).getOrDefault(tenant, Map.of());
					if (!shard.equals(owner) && !texts.isEmpty()) {
						misplaced += texts.size();
						violations.add(texts.size() + " rows of " + tenant + " on " + shard + ", owner is " + owner);
					}
				}
				Map<String, Integer> onOwner = rows.get(owner).getOrDefault(tenant, Map.of());
				for (Map.Entry<String, Integer> row : onOwner.entrySet()) {
					Write write = byId.get(row.getKey());
					if (row.getValue() > 1) {
						duplicated++;
						violations.add("write " + row.getKey() + " of " + tenant + " exists " + row.getValue() + " times");
					}
					if (write == null || !write.tenant().equals(tenant)) {
						phantom++;
						violations.add("row " + row.getKey() + " of " + tenant + " matches no write of that tenant");
					}
					else if (write.outcome() == Outcome.FAILED || write.outcome() == Outcome.REFUSED) {
						phantom++;
						violations.add("write " + row.getKey() + " of " + tenant + " " + write.outcome() + " ("
								+ write.error() + ") but its row exists");
					}
				}
			}
			for (Write write : byId.values()) {
				if (write.outcome() == Outcome.COMMITTED
						&& !rows.get(directory.get(write.tenant()).shardId()).getOrDefault(write.tenant(), Map.of())
							.containsKey(write.id())) {
					lost++;
					violations.add("committed write " + write.id() + " of " + write.tenant() + " is missing");
				}
			}

			long transactions = byId.size();
			long committed = byId.values().stream().filter(w -> w.outcome() == Outcome.COMMITTED).count();
			StringBuilder report = new StringBuilder("\n[chaos] ===== chaos run report (seed ").append(seed)
				.append(", ").append(duration.toSeconds()).append(" s) =====\n");
			report.append(String.format("[chaos] moves started %d, completed %d (by their mover %d, resumed after a "
					+ "kill %d), failed under a fault %d (then finished by the healer: %d DONE, %d ABORTED); movers "
					+ "killed %d%n", counted("moves started"),
					counted("moves completed") + counted("moves resumed to completion"), counted("moves completed"),
					counted("moves resumed to completion"), counted("moves failed"),
					counted("moves finished by the healer DONE"), counted("moves finished by the healer ABORTED"),
					counted("movers killed")));
			report.append(String.format("[chaos] directory restarts %d, listener kills %d, shard restarts %d%n",
					counted("directory restarts"), counted("listener kills"), counted("shard restarts")));
			report.append(String.format("[chaos] transactions %d (committed %d), attempts %d, retries %d%n",
					transactions, committed, attempts.sum(), attempts.sum() - transactions));
			for (Writer writer : List.of(Writer.JDBC_UNDO, Writer.JDBC_LOSSY)) {
				report.append(String.format("[chaos] %s writes %d: committed %d, refused (RerunMismatchException) %d%n",
						writer, byId.values().stream().filter(w -> w.writer() == writer).count(),
						byId.values().stream().filter(w -> w.writer() == writer && w.outcome() == Outcome.COMMITTED)
							.count(),
						byId.values().stream().filter(w -> w.writer() == writer && w.outcome() == Outcome.REFUSED)
							.count()));
			}
			new TreeMap<>(this.errors).forEach((k, v) -> report.append("[chaos]   outcome ").append(k).append(": ")
				.append(v.sum()).append('\n'));
			report.append(String.format("[chaos] checked %d tenants on %d shards: lost %d, duplicated %d, misplaced %d, "
					+ "failed-but-present %d, untyped errors %d; routers converged at directory version %d%n",
					tenants.size(), PostgresCluster.SHARD_IDS.size(), lost, duplicated, misplaced, phantom,
					byId.values().stream().filter(w -> w.outcome() == Outcome.UNTYPED).count(), directoryVersion));
			report.append("[chaos] violations ").append(violations.size()).append('\n');
			violations.stream().limit(30).forEach(v -> report.append("[chaos]   ").append(v).append('\n'));
			report.append("[chaos] timeline: ").append(String.join("; ", this.log.all())).append('\n');
			System.out.println(report);

			assertThat(committed).as("the run committed writes").isPositive();
			assertThat(counted("moves completed") + counted("moves resumed to completion")
					+ counted("moves finished by the healer DONE")).as("moves completed").isPositive();
			assertThat(violations).as("violations (seed %d)", seed).isEmpty();
		}
		finally {
			stop.set(true);
			writers.shutdownNow();
			movers.shutdownNow();
			cluster.ensureAllRunning();
		}
	}

	/** One write through the retry: its outcome as the caller saw it. */
	static Write write(String id, String tenant, SessionFactory sessions, ShardTenancyRetry retry, LongAdder attempts) {
		try {
			TenantContext.runAs(tenant, () -> retry.run(() -> {
				attempts.increment();
				sessions.inTransaction(session -> session.persist(new PgNote(id)));
			}));
			return new Write(id, tenant, Writer.HIBERNATE, Outcome.COMMITTED, null);
		}
		catch (RuntimeException ex) {
			return failed(id, tenant, Writer.HIBERNATE, ex);
		}
	}

	/**
	 * One write by plain JDBC through the retry: a new {@link JdbcNote} whose text is the write's id, saved with
	 * {@link #save} in one transaction on the instance's tenant-routing DataSource (rolled back on failure, a failing
	 * rollback attached to the failure); its outcome as the caller saw it.
	 */
	static Write jdbcWrite(String id, String tenant, Writer writer, AppInstance app, ShardTenancyRetry retry,
			LongAdder attempts) {
		JdbcNote note = new JdbcNote(id);
		try {
			TenantContext.runAs(tenant, () -> retry.run(() -> {
				attempts.increment();
				try (Connection c = app.dataSource.getConnection()) {
					c.setAutoCommit(false);
					try {
						save(c, tenant, note, writer == Writer.JDBC_UNDO);
						c.commit();
					}
					catch (SQLException | RuntimeException ex) {
						try {
							c.rollback();
						}
						catch (SQLException rollback) {
							// a connection the pool evicted after the failure: the failure is what counts
							ex.addSuppressed(rollback);
						}
						throw ex;
					}
				}
				catch (SQLException ex) {
					throw new JdbcFailure(ex);
				}
			}));
			return new Write(id, tenant, writer, Outcome.COMMITTED, null);
		}
		catch (RuntimeException ex) {
			return failed(id, tenant, writer, ex);
		}
	}

	/**
	 * The save shape of issue 33: a new note gets its id, then is inserted; a note with an id is updated. With
	 * {@code undo}, a failed attempt sets the id back to {@code null} ({@link RetryAttempts#onRollback}), so its
	 * re-run inserts again; without, the re-run updates a row that was never written.
	 */
	static void save(Connection c, String tenant, JdbcNote note, boolean undo) throws SQLException {
		if (note.id == null) {
			note.id = UUID.randomUUID();
			if (undo) {
				RetryAttempts.onRollback(() -> note.id = null);
			}
			try (PreparedStatement ps = c.prepareStatement("INSERT INTO pg_note (id, tenant_id, text) VALUES (?, ?, ?)")) {
				ps.setObject(1, note.id);
				ps.setString(2, tenant);
				ps.setString(3, note.text);
				ps.executeUpdate();
			}
		}
		else {
			try (PreparedStatement ps = c.prepareStatement("UPDATE pg_note SET text = ? WHERE id = ?")) {
				ps.setString(1, note.text);
				ps.setObject(2, note.id);
				ps.executeUpdate();
			}
		}
	}

	/** @return the outcome of a write whose retry ended in {@code ex}, as the caller saw it */
	static Write failed(String id, String tenant, Writer writer, RuntimeException ex) {
		if (ex instanceof RerunMismatchException) {
			return new Write(id, tenant, writer, Outcome.REFUSED, ex.getClass().getSimpleName());
		}
		if (ex instanceof ShardConnectionLostException) {
			return new Write(id, tenant, writer, Outcome.UNCERTAIN, ex.getClass().getSimpleName());
		}
		if (ex instanceof RetriesExhaustedException) {
			return new Write(id, tenant, writer, Outcome.FAILED, ex.getClass().getSimpleName() + "("
					+ (ex.getCause() != null ? ex.getCause().getClass().getSimpleName() : "") + ")");
		}
		if (ex instanceof ShardTenancyException) {
			return new Write(id, tenant, writer, Outcome.FAILED, ex.getClass().getSimpleName());
		}
		return new Write(id, tenant, writer, Outcome.UNTYPED, ex.getClass().getName() + ": " + ex.getMessage());
	}

	void startMove(Random chaos, boolean kill, List<String> tenants, Set<String> moving, List<Future<?>> tasks,
			ExecutorService movers, Mover mover, AppInstance operator) {
		if (moving.size() >= 3) {
			return;
		}
		String tenant = tenants.get(chaos.nextInt(tenants.size()));
		if (!moving.add(tenant)) {
			return;
		}
		int targetIndex = chaos.nextInt(PostgresCluster.SHARD_IDS.size());
		MoveStep killAfter = kill ? List.of(MoveStep.MARKED, MoveStep.COPIED, MoveStep.CAUGHT_UP, MoveStep.FROZEN,
				MoveStep.FINAL_CAUGHT_UP, MoveStep.VERIFIED, MoveStep.FLIPPED).get(chaos.nextInt(7)) : null;
		long resumeAfter = 200 + chaos.nextInt(1500);
		tasks.add(movers.submit(() -> {
			try {
				Optional<DirectoryEntry> entry = operator.directory.find(tenant);
				if (entry.isEmpty() || entry.get().state() != TenantState.ACTIVE) {
					return;
				}
				String source = entry.get().shardId();
				String target = PostgresCluster.SHARD_IDS.get(targetIndex);
				if (target.equals(source)) {
					target = PostgresCluster.SHARD_IDS.get((targetIndex + 1) % PostgresCluster.SHARD_IDS.size());
				}
				count("moves started");
				this.log.add("move " + tenant + " " + source + "->" + target
						+ (killAfter != null ? " (kill after " + killAfter + ")" : ""));
				Mover running = killAfter == null ? mover : mover.withHook((moveId, step) -> {
					if (step == killAfter) {
						throw new MoverKilled(step);
					}
				});
				try {
					running.moveAndWait(tenant, target, MoveSettings.defaults());
					count("moves completed");
				}
				catch (MoverKilled killed) {
					count("movers killed");
					this.log.add("mover of " + tenant + " killed after " + killAfter);
					sleep(resumeAfter);
					Mover resumer = mover.withLease(Duration.ZERO);
					MoveStatus status = resumer.findActive(tenant).orElseThrow();
					resumer.resume(status.moveId());
					count("moves resumed to completion");
					this.log.add("move of " + tenant + " resumed to completion");
				}
			}
			catch (RuntimeException ex) {
				count("moves failed");
				this.log.add("move of " + tenant + " failed: " + ex.getClass().getSimpleName());
			}
			finally {
				moving.remove(tenant);
			}
		}));
	}

	/** Finishes (resumes) a move left unfinished by a fault, retrying while servers come back. */
	void finishMove(Mover healer, String tenant) {
		await("the healer finishes the move of " + tenant).atMost(BOUND)
			.pollInSameThread()
			.pollInterval(Duration.ofMillis(250))
			.ignoreExceptions()
			.until(() -> {
				Optional<MoveStatus> active = healer.findActive(tenant);
				if (active.isPresent()) {
					MoveStatus done = healer.resume(active.get().moveId());
					count("moves finished by the healer " + done.step());
					this.log.add("healer finished the move of " + tenant + " (" + done.step() + ")");
				}
				return true;
			});
	}

	static boolean converged(AppInstance app, Map<String, DirectoryEntry> directory, long directoryVersion) {
		try {
			await("the router of " + app.name + " converges").atMost(BOUND)
				.pollInterval(Duration.ofMillis(50))
				.until(() -> sameAsDirectory(app, directory, directoryVersion));
			return true;
		}
		catch (ConditionTimeoutException ex) {
			return false;
		}
	}

	private static boolean sameAsDirectory(AppInstance app, Map<String, DirectoryEntry> directory,
			long directoryVersion) {
		boolean same = app.router.version() == directoryVersion;
		for (Map.Entry<String, DirectoryEntry> e : directory.entrySet()) {
			Optional<DirectoryEntry> cached = app.router.cached(e.getKey());
			same &= cached.isEmpty() || cached.get().equals(e.getValue());
		}
		return same;
	}

	/** @return for one shard: tenant -> note text (the write id) -> number of rows */
	static Map<String, Map<String, Integer>> rowsOf(PostgresCluster cluster, String shard, List<String> tenants)
			throws SQLException {
		Map<String, Map<String, Integer>> rows = new HashMap<>();
		try (HikariDataSource ds = cluster.pool(cluster.shard(shard), 1, "chaos-check");
				Connection c = ds.getConnection();
				PreparedStatement ps = c.prepareStatement(
						"SELECT tenant_id, text, count(*) FROM pg_note WHERE tenant_id = ANY (?) GROUP BY tenant_id, text")) {
			Array array = c.createArrayOf("varchar", tenants.toArray());
			ps.setArray(1, array);
			try (ResultSet rs = ps.executeQuery()) {
				while (rs.next()) {
					rows.computeIfAbsent(rs.getString(1), k -> new HashMap<>()).put(rs.getString(2), rs.getInt(3));
				}
			}
		}
		return rows;
	}

	static void sleep(long millis) {
		try {
			// the scenario's timing (pacing, downtime, time between faults), never a wait for a condition
			Thread.sleep(millis);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			throw new IllegalStateException(ex);
		}
	}

	/** A thread-safe append-only list. */
	static final class Queue<T> {

		private final ConcurrentLinkedQueue<T> items = new ConcurrentLinkedQueue<>();

		void add(T item) {
			this.items.add(item);
		}

		List<T> all() {
			return List.copyOf(this.items);
		}

	}

}
