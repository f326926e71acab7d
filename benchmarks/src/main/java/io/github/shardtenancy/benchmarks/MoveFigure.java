package io.github.shardtenancy.benchmarks;

import static io.github.shardtenancy.benchmarks.ResultsTable.fmt;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.SQLFeatureNotSupportedException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.Collections;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.stream.LongStream;

import javax.sql.DataSource;

import io.github.shardtenancy.ShardTenancy;
import io.github.shardtenancy.internal.Internals;
import io.github.shardtenancy.RetriesExhaustedException;
import io.github.shardtenancy.TenantContext;
import io.github.shardtenancy.TenantAdmin;
import io.github.shardtenancy.TenantTable;
import io.github.shardtenancy.benchmarks.BenchApps.Db;
import io.github.shardtenancy.benchmarks.app.domain.LineItemService;
import io.github.shardtenancy.benchmarks.app.domain.OrderService;
import io.github.shardtenancy.internal.directory.Directory;
import io.github.shardtenancy.internal.move.Mover;
import io.github.shardtenancy.liquibase.ShardTenancyMigrations;
import io.github.shardtenancy.MoveSettings;
import io.github.shardtenancy.MoveStatus;
import io.github.shardtenancy.MoveStep;
import io.github.shardtenancy.internal.routing.Router;
import io.github.shardtenancy.internal.topology.Topology;
import org.postgresql.PGConnection;
import org.postgresql.copy.CopyManager;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.jdbc.datasource.DriverManagerDataSource;

/**
 * Figure 4, the move: a tenant of 100k rows (2k in the smoke run) moved 10 times (2 in the smoke run), back and forth
 * between two shards, by the online mover ({@link Mover}) while 8 writers add lines and items (a table with a
 * composite primary key) to it through the application (library Boot auto-configuration, automatic retry). Reports
 * the freeze window (the move log's frozenAt to
 * flippedAt) p50 and p99 over the moves, the time per step (a {@link MoveStep} hook), the writers' latency, and the
 * bulk copy step's rate against PostgreSQL {@code COPY} out of the owner shard and into the other shard of the same
 * rows, run right after each move (so the two alternate): the median and range of the per-move ratios. Runs on
 * PostgreSQL when the PostgreSQL dialect has the change capture the mover needs;
 * otherwise the freeze window is measured on H2 and the copy rate row says why it was not measured. Also the first
 * catch-up round's drain rate against the writers' rate ({@link CatchUpProbe}). A move that does
 * not finish within 6 minutes (3 in the smoke run) is reported as not measured, with the last step it recorded.
 */
final class MoveFigure {

	static final String FREEZE = "move: freeze window p50 / p99";

	static final String COPY = "move: copy rate vs PostgreSQL COPY out+in";

	static final String CATCH_UP = "move: catch-up rate vs the writers' change rate";

	static final String CATCH_UP_GOAL = ">= 10x the writers' rate";

	/** The tables of the moving tenant; {@code bench_line_item}'s primary key is {@code (order_id, line_no)}. */
	private static final List<TenantTable> TABLES = List.of(new TenantTable("bench_order", "tenant_id"),
			new TenantTable("bench_order_line", "tenant_id"), new TenantTable("bench_line_item", "tenant_id"));

	private MoveFigure() {
	}

	static List<Figure> run(BenchPostgres pg, Sizes sizes, String suffix) throws Exception {
		String pgReason = pg != null ? postgresUnavailable(pg) : "embedded PostgreSQL not running";
		if (pgReason == null) {
			Db directory = new Db(pg.createDatabase("bench_move_directory"), pg.user(), pg.password());
			Db shard1 = new Db(pg.createDatabase("bench_move_shard_1"), pg.user(), pg.password());
			Db shard2 = new Db(pg.createDatabase("bench_move_shard_2"), pg.user(), pg.password());
			return measure("PostgreSQL", directory, shard1, shard2, sizes, "");
		}
		List<Figure> h2 = measure("H2", Db.h2("bench-move-directory-" + suffix), Db.h2("bench-move-shard-1-" + suffix),
				Db.h2("bench-move-shard-2-" + suffix), sizes, "H2, not PostgreSQL: " + pgReason + ". ");
		return List.of(h2.get(0), Figure.notMeasured(COPY, ">= 0.90 of COPY", pgReason), h2.get(1));
	}

	/** @return why the online mover cannot run on PostgreSQL shards, or {@code null} if it can */
	private static String postgresUnavailable(BenchPostgres pg) {
		String url = pg.createDatabase("bench_move_probe");
		try (Topology topology = new Topology()) {
			Topology.Shard shard = topology.addShard("probe",
					new DriverManagerDataSource(url, pg.user(), pg.password()));
			ShardTenancyMigrations.migrateShard(shard.dataSource(), "probe", List.of(BenchApps.APP_CHANGELOG));
			try (Connection c = shard.dataSource().getConnection()) {
				shard.dialect().installChangeCapture(c, "bench_order", "tenant_id");
			}
			return null;
		}
		catch (SQLFeatureNotSupportedException ex) {
			return "online mover not available on PostgreSQL (" + ex.getMessage() + ")";
		}
		catch (Exception ex) {
			return "online mover not available on PostgreSQL (" + ex.getMessage() + ")";
		}
	}

	private static List<Figure> measure(String database, Db directory, Db shard1, Db shard2, Sizes sizes,
			String prefixNote) throws Exception {
		boolean postgres = database.equals("PostgreSQL");
		// -Dbench.move.rows and -Dbench.move.moves shrink a trial run; the figure's method is the default.
		int rows = Integer.getInteger("bench.move.rows", sizes.quick() ? 2_000 : 100_000);
		// At least 10 moves for a p99 that is not just the maximum of one; the tenant goes back and forth.
		int moves = Integer.getInteger("bench.move.moves", sizes.quick() ? 2 : 10);
		int writers = 8;
		String name = fmt("%s, %s (%dk-row tenant, %d writers, %d move%s)", FREEZE, database, rows / 1000,
				writers, moves, moves == 1 ? "" : "s");
		try (ConfigurableApplicationContext app = BenchApps.library(directory,
				Map.of("shard-1", shard1, "shard-2", shard2), Map.of("shard-tenancy.shards.shard-1.maximum-pool-size",
						"12", "shard-tenancy.shards.shard-2.maximum-pool-size", "12"))) {
			OrderService service = app.getBean(OrderService.class);
			LineItemService items = app.getBean(LineItemService.class);
			TenantAdmin admin = app.getBean(TenantAdmin.class);
			Router router = Internals.router(app.getBean(ShardTenancy.class));
			Topology topology = Internals.topology(app.getBean(ShardTenancy.class));
			DataSource routing = app.getBean(DataSource.class);
			for (String shardId : List.of("shard-1", "shard-2")) {
				Topology.Shard shard = topology.shard(shardId);
				try (Connection c = shard.dataSource().getConnection()) {
					for (TenantTable table : TABLES) {
						shard.dialect().installChangeCapture(c, table.table(), table.tenantColumn());
					}
				}
			}
			String tenant = "moving-tenant";
			admin.create(tenant, "shard-1");
			List<UUID> orders = new ArrayList<>();
			for (int w = 0; w < writers; w++) {
				UUID order = UUID.randomUUID();
				TenantContext.runAs(tenant, () -> service.createOrder(order));
				orders.add(order);
			}
			bulkLines(routing, tenant, orders.get(0), rows - writers, postgres);

			AtomicBoolean stop = new AtomicBoolean();
			AtomicLong gaveUp = new AtomicLong();
			AtomicReference<Throwable> failure = new AtomicReference<>();
			ConcurrentLinkedQueue<Long> latencies = new ConcurrentLinkedQueue<>();
			List<Thread> threads = new ArrayList<>();
			for (UUID order : orders) {
				Thread t = new Thread(() -> {
					int next = 0;
					while (!stop.get()) {
						long start = System.nanoTime();
						long took;
						try (TenantContext.Scope scope = TenantContext.bind(tenant)) {
							service.addLine(order, 1);
							took = System.nanoTime() - start;
							// Then, in a transaction of its own (not in the latency), a change of the composite-key
							// table: mostly new items, every fourth time a change of an earlier one, every tenth a
							// removal.
							int n = next++;
							if (n % 10 == 9) {
								items.remove(order, n - 5);
							}
							else if (n % 4 == 3) {
								items.change(order, n - 2);
							}
							else {
								items.add(order, n);
							}
						}
						catch (RetriesExhaustedException ex) {
							// The freeze outlasted the retry layer's freeze-wait: the caller sees an error.
							gaveUp.incrementAndGet();
							continue;
						}
						catch (Throwable ex) {
							failure.compareAndSet(null, ex);
							return;
						}
						latencies.add(took);
					}
				}, "bench-move-writer");
				threads.add(t);
				t.start();
			}
			// Where the time goes: the time each step took, from the hook called after each recorded step.
			Map<MoveStep, Long> stepNanos = Collections.synchronizedMap(new EnumMap<>(MoveStep.class));
			long[] lastStep = new long[1];
			MoveStep[] lastRecorded = new MoveStep[1];
			// Per move: the COPIED step's time, and the first catch-up round's rates.
			long[] copyNanos = new long[moves];
			int[] current = new int[1];
			CatchUpProbe[] catchUps = new CatchUpProbe[moves];
			String[] source = new String[1];
			ExecutorService verifiers = Executors.newFixedThreadPool(2, (r) -> {
				Thread t = new Thread(r, "bench-move-verify");
				t.setDaemon(true);
				return t;
			});
			Mover mover = new Mover(Internals.directory(app.getBean(ShardTenancy.class)), router, topology, TABLES, "benchmarks", verifiers)
				.withHook((moveId, step) -> {
					long now = System.nanoTime();
					if (step != MoveStep.PLANNED) {
						stepNanos.merge(step, now - lastStep[0], Long::sum);
					}
					if (step == MoveStep.COPIED) {
						copyNanos[current[0]] = now - lastStep[0];
						catchUps[current[0]] = CatchUpProbe.start(topology.shard(source[0]).dataSource(), tenant);
					}
					lastStep[0] = now;
					lastRecorded[0] = step;
					BenchmarkHarness.progress("move step " + step + " recorded");
				});
			long[] freezes = new long[moves];
			long[] movedRows = new long[moves];
			double[] baselineRates = new double[moves];
			double baselineRows = 0;
			double totalSeconds = 0;
			String target = "shard-2";
			ExecutorService moverThread = Executors.newSingleThreadExecutor((r) -> {
				Thread t = new Thread(r, "bench-mover");
				t.setDaemon(true);
				return t;
			});
			try {
				for (int m = 0; m < moves; m++) {
					source[0] = router.route(tenant).shardId();
					movedRows[m] = countRows(topology.shard(source[0]).dataSource(), tenant);
					current[0] = m;
					long start = System.nanoTime();
					String moveTarget = target;
					Future<String> move = moverThread
						.submit(() -> mover.moveAndWait(tenant, moveTarget, MoveSettings.defaults()).moveId());
					String moveId;
					try {
						moveId = move.get(sizes.quick() ? 3 : 6, TimeUnit.MINUTES);
					}
					catch (TimeoutException ex) {
						throw new IllegalStateException(fmt("the move did not finish within %d minutes (last step "
								+ "recorded: %s; time per step so far: %s)", sizes.quick() ? 3 : 6, lastRecorded[0],
								stepNanos));
					}
					totalSeconds += (System.nanoTime() - start) / 1e9;
					MoveStatus status = mover.status(moveId);
					freezes[m] = status.freezeWindow().orElseThrow().toNanos();
					target = target.equals("shard-2") ? "shard-1" : "shard-2";
					if (postgres) {
						// The baseline right after each move (alternating with the mover's copy), under the same 8
						// writers, from the new owner to the other shard.
						String owner = router.route(tenant).shardId();
						String other = owner.equals("shard-1") ? "shard-2" : "shard-1";
						double[] copy = copyBaseline(topology.shard(owner).dataSource(),
								topology.shard(other).dataSource(), tenant);
						baselineRates[m] = copy[0];
						baselineRows = copy[1];
					}
				}
			}
			finally {
				stop.set(true);
				for (Thread t : threads) {
					t.join(30_000);
				}
				moverThread.shutdownNow();
				verifiers.shutdownNow();
			}
			if (failure.get() != null) {
				throw new IllegalStateException("A writer failed during the move: " + failure.get(), failure.get());
			}
			long[] writerLatency = latencies.stream().mapToLong(Long::longValue).toArray();
			double p50 = InvalidationLatencyFigure.percentile(freezes, 50) / 1e6;
			double p99 = InvalidationLatencyFigure.percentile(freezes, 99) / 1e6;
			double wp99 = writerLatency.length > 0 ? InvalidationLatencyFigure.percentile(writerLatency, 99) / 1e6 : 0;
			double wmax = writerLatency.length > 0 ? InvalidationLatencyFigure.percentile(writerLatency, 100) / 1e6 : 0;
			StringBuilder steps = new StringBuilder();
			stepNanos.forEach((step, nanos) -> steps.append(steps.isEmpty() ? "" : ", ")
				.append(step)
				.append(' ')
				.append(fmt("%.0f ms", nanos / 1e6 / moves)));
			double copySeconds = stepNanos.getOrDefault(MoveStep.COPIED, 0L) / 1e9;
			double copyRate = copySeconds > 0 ? LongStream.of(movedRows).sum() / copySeconds : 0;
			double[] freezeMs = LongStream.of(freezes).mapToDouble((nanos) -> nanos / 1e6).toArray();
			Figure freeze = new Figure(name, "-", fmt("%.0f / %.0f ms", p50, p99), Double.NaN, "<= 150 ms p99",
					Figure.verdict(p99 <= 150),
					fmt("%sFreeze = frozenAt to flippedAt of the move log (ms precision), over "
							+ "%d move(s), min-max %.0f-%.0f ms. Time per step recorded, average per move (the freeze spans FROZEN, "
							+ "FINAL_CAUGHT_UP, VERIFIED and FLIPPED): %s. Whole move %.1f s on average; bulk copy "
							+ "%.0f rows/s. Writers committed %d transactions during the move(s); writer transaction "
							+ "latency (retries included) p99 %.0f ms, max %.0f ms; %d writer transactions gave up "
							+ "(RetriesExhaustedException: the freeze outlasted shard-tenancy.retry.freeze-wait, 10 s).",
							prefixNote, moves, Spread.of(freezeMs).min(), Spread.of(freezeMs).max(), steps,
							totalSeconds / moves, copyRate, writerLatency.length, wp99, wmax, gaveUp.get()));
			Figure catchUp = CatchUpProbe.figure(catchUps, database, writers);
			if (!postgres) {
				return List.of(freeze, catchUp);
			}
			CopyRatios fenced = copyRatios(movedRows, copyNanos, baselineRates);
			return List.of(freeze,
					new Figure(fmt("%s (%.0fk rows)", COPY, baselineRows / 1000), fmt("%.0f rows/s (COPY out + in)",
							fenced.baseline().median()), fmt("%.0f rows/s (online mover bulk copy step)",
									fenced.mover().median()),
							fenced.ratio().median(), ">= 0.90 of COPY", Figure.verdict(fenced.ratio().median() >= 0.9),
							fmt("Per move, the mover's rate over its COPIED step against a COPY baseline run right "
									+ "after that move: ratio %s. The benchmark's role is a superuser, so the mover "
									+ "copies with session_replication_role = replica (the target's row triggers "
									+ "off for the copy's transactions, foreign keys checked once after the copy; "
									+ "docs/postgresql.md); a role that may not set it copies with the triggers "
									+ "firing for every row. COPY baseline: "
									+ "COPY (SELECT ... WHERE tenant_id = ...) TO STDOUT from the owner shard "
									+ "into memory, then COPY ... FROM STDIN into a copy of each table (LIKE ... "
									+ "INCLUDING ALL: same primary key and index, no triggers; emptied with DELETE "
									+ "as the mover's clean step empties a shard) on the other shard, "
									+ "every table, while the 8 writers still ran; the mover streams the source's "
									+ "snapshot with COPY TO STDOUT into COPY FROM STDIN on the target tables "
									+ "(PostgresBulkCopier).", fenced.ratio().describe("%.2f"))),
					catchUp);
		}
	}

	/** The mover's copy rates, the baselines' and their ratios, over the moves. */
	record CopyRatios(Spread mover, Spread baseline, Spread ratio) {
	}

	private static CopyRatios copyRatios(long[] rows, long[] copyNanos, double[] baselineRates) {
		List<double[]> picked = new ArrayList<>();
		for (int m = 0; m < rows.length; m++) {
			if (copyNanos[m] > 0) {
				double rate = rows[m] / (copyNanos[m] / 1e9);
				picked.add(new double[] { rate, baselineRates[m], rate / baselineRates[m] });
			}
		}
		if (picked.isEmpty()) {
			Spread none = Spread.of(Double.NaN);
			return new CopyRatios(none, none, none);
		}
		return new CopyRatios(Spread.of(picked.stream().mapToDouble((p) -> p[0]).toArray()),
				Spread.of(picked.stream().mapToDouble((p) -> p[1]).toArray()),
				Spread.of(picked.stream().mapToDouble((p) -> p[2]).toArray()));
	}

	private static void bulkLines(DataSource routing, String tenant, UUID order, int count, boolean postgres)
			throws SQLException {
		String sql = postgres
				? "INSERT INTO bench_order_line (id, tenant_id, order_id, amount) SELECT gen_random_uuid(), ?, ?, 1 "
						+ "FROM generate_series(1, ?)"
				: "INSERT INTO bench_order_line (id, tenant_id, order_id, amount) SELECT RANDOM_UUID(), ?, ?, 1 "
						+ "FROM SYSTEM_RANGE(1, ?)";
		try (TenantContext.Scope scope = TenantContext.bind(tenant); Connection c = routing.getConnection()) {
			c.setAutoCommit(false);
			try (PreparedStatement ps = c.prepareStatement(sql)) {
				ps.setString(1, tenant);
				ps.setObject(2, order);
				ps.setInt(3, count);
				ps.executeUpdate();
			}
			c.commit();
		}
	}

	private static long countRows(DataSource shard, String tenant) throws SQLException {
		long rows = 0;
		try (Connection c = shard.getConnection()) {
			for (TenantTable table : TABLES) {
				try (PreparedStatement ps = c
					.prepareStatement("SELECT COUNT(*) FROM " + table.table() + " WHERE tenant_id = ?")) {
					ps.setString(1, tenant);
					try (ResultSet rs = ps.executeQuery()) {
						rs.next();
						rows += rs.getLong(1);
					}
				}
			}
		}
		return rows;
	}

	/** @return COPY rows per second (out of the source and into the target, both tables) and the rows copied */
	private static double[] copyBaseline(DataSource source, DataSource target, String tenant) throws Exception {
		double seconds = 0;
		long rows = 0;
		int runs = 1;
		for (int run = 0; run < runs; run++) {
			rows = 0;
			try (Connection from = source.getConnection(); Connection to = target.getConnection()) {
				from.setAutoCommit(true);
				to.setAutoCommit(true);
				for (TenantTable table : TABLES) {
					try (Statement st = to.createStatement()) {
						st.execute("CREATE TABLE IF NOT EXISTS bench_copy_" + table.table() + " (LIKE " + table.table()
								+ " INCLUDING ALL)");
						// DELETE, not TRUNCATE: the table is left as the mover leaves a shard the tenant moved away
						// from (its clean step deletes the rows), so both copy into a table holding the dead rows
						// of the previous copy, until autovacuum removes them.
						st.execute("DELETE FROM bench_copy_" + table.table());
					}
				}
				CopyManager out = from.unwrap(PGConnection.class).getCopyAPI();
				CopyManager in = to.unwrap(PGConnection.class).getCopyAPI();
				long start = System.nanoTime();
				for (TenantTable table : TABLES) {
					ByteArrayOutputStream buffer = new ByteArrayOutputStream(1 << 20);
					out.copyOut("COPY (SELECT * FROM " + table.table() + " WHERE tenant_id = '" + tenant
							+ "') TO STDOUT", buffer);
					rows += in.copyIn("COPY bench_copy_" + table.table() + " FROM STDIN",
							new ByteArrayInputStream(buffer.toByteArray()));
				}
				seconds += (System.nanoTime() - start) / 1e9;
			}
		}
		return new double[] { rows / (seconds / runs), rows };
	}

}
