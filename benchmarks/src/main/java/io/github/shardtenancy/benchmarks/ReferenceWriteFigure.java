package io.github.shardtenancy.benchmarks;

import static io.github.shardtenancy.benchmarks.ResultsTable.fmt;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.EnumMap;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicReference;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import io.github.shardtenancy.ReferenceDataReport;
import io.github.shardtenancy.ReferenceStatement;
import io.github.shardtenancy.ReferenceTables;
import io.github.shardtenancy.RouterSettings;
import io.github.shardtenancy.ShardTenancy;
import io.github.shardtenancy.ShardTenancyBuilder;
import io.github.shardtenancy.liquibase.ShardTenancyMigrations;
import org.springframework.jdbc.datasource.DriverManagerDataSource;

/**
 * Figure 7, the cost of one reference write ({@link ReferenceTables#write}) on PostgreSQL, against the same
 * single-row write as plain JDBC (auto-commit) on one database. Two embedded servers with the harness's settings
 * ({@link BenchPostgres}), one with {@code max_prepared_transactions = 20} (each shard's part of a write is prepared:
 * two-phase commit) and one with 0 (each shard's transaction is held open until the directory records the write); on
 * each, a directory with 1, 2 and 4 shards (three tenancies; the reference table {@code ref_type} created by the
 * library's shard changelog with {@code db/bench/reference.xml}) and a plain database with the same table for the
 * baseline. Every write is one statement: an INSERT of a new row or an UPDATE of that row, alternating.
 *
 * <p>After a warm-up round, the rounds: in each, every variant (six of the library, two baselines) runs its writes
 * back to back, one variant after the other, the order rotated by one every round so that drift of the shared
 * machine hits all of them. Per variant and round: the median latency of a write and the writes per second (the
 * round's writes over their time); reported is the median over the rounds with min-max. A counting pass follows,
 * never timed: the writing thread's pgjdbc Sync messages ({@link RoundTrips.Counter}) per write. A mode whose setting
 * the embedded server does not take is reported as not measured, with the setting it runs with.
 */
final class ReferenceWriteFigure {

	private static final String CHANGELOG = "db/bench/reference.xml";

	private static final String TABLE = "ref_type";

	private static final int[] SHARDS = { 1, 2, 4 };

	/** The goal column of its rows: none, the figure documents a cost. */
	static final String GOAL = "- (a cost, documented)";

	private static final String COUNTING_THREAD = "bench-reference-count";

	private ReferenceWriteFigure() {
	}

	/** How a shard holds its part of a write until the directory records it. */
	enum Mode {

		/** {@code PREPARE TRANSACTION} on every shard, {@code COMMIT PREPARED} after the directory's commit. */
		TWO_PHASE,

		/** Every shard's transaction kept open on its connection, committed after the directory's commit. */
		HELD_OPEN;

		/** @return how the figure names it */
		String label() {
			return this == TWO_PHASE ? "two-phase commit" : "transactions held open";
		}

		/** @return the server's {@code max_prepared_transactions} for this mode */
		String maxPreparedTransactions() {
			return this == TWO_PHASE ? "20" : "0";
		}

		/** @return a short name, for database names and progress lines */
		String key() {
			return this == TWO_PHASE ? "2pc" : "open";
		}

	}

	/** One write of a variant. */
	@FunctionalInterface
	interface Write {

		void run(ReferenceStatement statement) throws SQLException;

	}

	/** One side of the rounds: the library on some shards, or the plain baseline ({@code shards} 0). */
	static final class Variant {

		final Mode mode;

		final int shards;

		private final Write write;

		final List<Double> latencyMicros = new ArrayList<>();

		final List<Double> perSecond = new ArrayList<>();

		private long lastId;

		Variant(Mode mode, int shards, Write write) {
			this.mode = mode;
			this.shards = shards;
			this.write = write;
		}

		/**
		 * Runs writes back to back: even ones insert a new row, odd ones update the row just inserted.
		 * @return the median latency of a write (us) and the writes per second
		 */
		double[] round(int writes) throws SQLException {
			double[] micros = new double[writes];
			long start = System.nanoTime();
			for (int i = 0; i < writes; i++) {
				ReferenceStatement statement = (i % 2 == 0)
						? ReferenceStatement.of("INSERT INTO " + TABLE + " (id, name) VALUES (?, ?)", ++this.lastId,
								"type-" + this.lastId)
						: ReferenceStatement.of("UPDATE " + TABLE + " SET name = ? WHERE id = ?",
								"renamed-" + this.lastId, this.lastId);
				long before = System.nanoTime();
				this.write.run(statement);
				micros[i] = (System.nanoTime() - before) / 1e3;
			}
			long elapsed = System.nanoTime() - start;
			return new double[] { RoutingOverheadFigure.median(micros), writes / (elapsed / 1e9) };
		}

		String label() {
			return this.shards == 0 ? "plain JDBC, " + this.mode.key()
					: fmt("%d shard%s, %s", this.shards, this.shards == 1 ? "" : "s", this.mode.key());
		}

	}

	/** One server of a mode, with its tenancies and the baseline's pool; {@code unavailable} says why not. */
	private static final class Side implements AutoCloseable {

		final Mode mode;

		BenchPostgres server;

		String unavailable;

		final List<ShardTenancy> tenancies = new ArrayList<>();

		final List<Variant> variants = new ArrayList<>();

		HikariDataSource plain;

		Side(Mode mode) {
			this.mode = mode;
		}

		@Override
		public void close() {
			for (ShardTenancy tenancy : this.tenancies) {
				tenancy.close();
			}
			if (this.plain != null) {
				this.plain.close();
			}
			if (this.server != null) {
				this.server.close();
			}
		}

	}

	static List<Figure> run(Sizes sizes) throws Exception {
		// -Dbench.reference.rounds and -Dbench.reference.writes change the run; the figure's method is the default.
		int rounds = Integer.getInteger("bench.reference.rounds", sizes.quick() ? 1 : 10);
		int writes = Integer.getInteger("bench.reference.writes", sizes.quick() ? 4 : 200);
		int counted = sizes.quick() ? 2 : 20;
		Map<Mode, Side> sides = new EnumMap<>(Mode.class);
		try {
			List<Variant> all = new ArrayList<>();
			for (Mode mode : Mode.values()) {
				Side side = new Side(mode);
				sides.put(mode, side);
				start(side);
				all.addAll(side.variants);
			}
			for (int round = -1; round < rounds; round++) {
				BenchmarkHarness.progress(round < 0 ? "reference writes: warm-up round"
						: fmt("reference writes: round %d of %d", round + 1, rounds));
				List<Variant> order = new ArrayList<>(all);
				Collections.rotate(order, -Math.floorMod(round, Math.max(1, order.size())));
				StringBuilder medians = new StringBuilder();
				for (Variant variant : order) {
					double[] measured = variant.round(writes);
					if (round >= 0) {
						variant.latencyMicros.add(measured[0]);
						variant.perSecond.add(measured[1]);
					}
					medians.append(medians.isEmpty() ? "" : "; ")
						.append(fmt("%s %.0f us", variant.label(), measured[0]));
				}
				System.err.println("[bench]   median latency per write: " + medians);
			}
			BenchmarkHarness.progress("reference writes: counting pass");
			Map<Variant, Double> roundTrips = new HashMap<>();
			for (Variant variant : all) {
				roundTrips.put(variant, roundTrips(variant, counted));
			}
			List<Figure> figures = new ArrayList<>();
			for (Side side : sides.values()) {
				figures.addAll(figures(side, roundTrips, rounds, writes, counted));
			}
			return figures;
		}
		finally {
			for (Side side : sides.values()) {
				try {
					side.close();
				}
				catch (RuntimeException ex) {
					// best effort
				}
			}
		}
	}

	/** Starts the mode's server and, if it runs the mode, its tenancies and baseline. */
	private static void start(Side side) {
		Mode mode = side.mode;
		BenchmarkHarness.progress("reference writes: embedded PostgreSQL with max_prepared_transactions = "
				+ mode.maxPreparedTransactions());
		try {
			side.server = BenchPostgres.start(Map.of("max_prepared_transactions", mode.maxPreparedTransactions()));
		}
		catch (RuntimeException ex) {
			side.unavailable = "embedded PostgreSQL did not start with max_prepared_transactions = "
					+ mode.maxPreparedTransactions() + ": " + ex.getMessage();
			return;
		}
		String value = side.server.setting("max_prepared_transactions");
		if ((Integer.parseInt(value) > 0) != (mode == Mode.TWO_PHASE)) {
			side.unavailable = "the embedded server runs with max_prepared_transactions = " + value + " although "
					+ mode.maxPreparedTransactions() + " was set, so it cannot run " + mode.label();
			return;
		}
		String plainUrl = side.server.createAppDatabase("bench_ref_" + mode.key() + "_plain");
		migrateShard(plainUrl, "plain");
		side.plain = new HikariDataSource(config(plainUrl, BenchPostgres.APP_ROLE, BenchPostgres.APP_ROLE));
		HikariDataSource plain = side.plain;
		side.variants.add(new Variant(mode, 0, (statement) -> {
			try (Connection c = plain.getConnection(); PreparedStatement ps = c.prepareStatement(statement.sql())) {
				int i = 1;
				for (Object parameter : statement.parameters()) {
					ps.setObject(i++, parameter);
				}
				ps.executeUpdate();
			}
		}));
		for (int shards : SHARDS) {
			ShardTenancy tenancy = tenancy(side.server, mode, shards);
			side.tenancies.add(tenancy);
			ReferenceTables tables = tenancy.referenceTables();
			side.variants.add(new Variant(mode, shards, (statement) -> tables.write(List.of(statement))));
		}
	}

	/**
	 * A directory and shards on one server, started. Shard ids differ between the tenancies of a server: its prepared
	 * transaction ids (which name the shard) are one namespace for all its databases.
	 */
	private static ShardTenancy tenancy(BenchPostgres server, Mode mode, int shards) {
		String prefix = "bench_ref_" + mode.key() + "_n" + shards;
		String directoryUrl = server.createDatabase(prefix + "_directory");
		ShardTenancyMigrations
			.migrateDirectory(new DriverManagerDataSource(directoryUrl, server.user(), server.password()));
		ShardTenancyBuilder builder = ShardTenancy.builder()
			.directory(config(directoryUrl, server.user(), server.password()));
		for (int i = 1; i <= shards; i++) {
			String shardId = "n" + shards + "-shard-" + i;
			String url = server.createAppDatabase(prefix + "_shard_" + i);
			migrateShard(url, shardId);
			builder.shard(shardId, config(url, BenchPostgres.APP_ROLE, BenchPostgres.APP_ROLE));
		}
		ShardTenancy tenancy = builder.referenceTables(List.of(TABLE))
			.actor("benchmarks")
			.rowLevelSecurity(BenchApps.rowLevelSecurity)
			.router(RouterSettings.defaults().withSyncInterval(Duration.ofHours(1)))
			.build();
		tenancy.start();
		return tenancy;
	}

	/** The library's shard changelog with the figure's, as the application role (the tables' owner). */
	private static void migrateShard(String url, String shardId) {
		ShardTenancyMigrations.migrateShard(
				new DriverManagerDataSource(url, BenchPostgres.APP_ROLE, BenchPostgres.APP_ROLE), shardId,
				List.of(CHANGELOG));
	}

	private static HikariConfig config(String url, String user, String password) {
		HikariConfig config = new HikariConfig();
		config.setJdbcUrl(url);
		config.setUsername(user);
		config.setPassword(password);
		config.setMaximumPoolSize(2);
		return config;
	}

	/**
	 * Round trips per write: the writing thread's pgjdbc Sync messages over a counting pass. Two uncounted writes
	 * first, so that the pools' connections are fresh (HikariCP validates a connection idle for over 500 ms, one more
	 * round trip).
	 */
	private static double roundTrips(Variant variant, int writes) throws Exception {
		variant.round(2);
		AtomicReference<Exception> failure = new AtomicReference<>();
		try (RoundTrips.Counter counter = new RoundTrips.Counter(COUNTING_THREAD)) {
			Thread thread = new Thread(() -> {
				try {
					variant.round(writes);
				}
				catch (Exception ex) {
					failure.set(ex);
				}
			}, COUNTING_THREAD + "-" + variant.mode.key() + "-" + variant.shards);
			thread.start();
			thread.join();
			if (failure.get() != null) {
				throw failure.get();
			}
			return (double) counter.roundTrips() / writes;
		}
	}

	private static String name(Mode mode, int shards) {
		return fmt("reference write, %d shard%s, %s (per write)", shards, shards == 1 ? "" : "s", mode.label());
	}

	private static List<Figure> figures(Side side, Map<Variant, Double> roundTrips, int rounds, int writes,
			int counted) {
		List<Figure> figures = new ArrayList<>();
		if (side.unavailable != null) {
			for (int shards : SHARDS) {
				figures.add(Figure.notMeasured(name(side.mode, shards), GOAL, side.unavailable));
			}
			return figures;
		}
		Variant plain = side.variants.get(0);
		Spread plainLatency = spread(plain.latencyMicros);
		Spread plainRate = spread(plain.perSecond);
		String check = check(side);
		for (Variant variant : side.variants.subList(1, side.variants.size())) {
			Spread latency = spread(variant.latencyMicros);
			Spread rate = spread(variant.perSecond);
			double[] ratios = new double[rounds];
			for (int r = 0; r < rounds; r++) {
				ratios[r] = variant.latencyMicros.get(r) / plain.latencyMicros.get(r);
			}
			Spread ratio = Spread.of(ratios);
			String note = fmt("%d round%s of %d writes per variant (INSERT of a new %s row, UPDATE of it, "
					+ "alternating), the library's variants and the baselines of both servers interleaved, order rotated each round. "
					+ "Latency of a write, median per round, then over rounds: ours %s us, baseline %s us; writes/s "
					+ "ours %s, baseline %s; latency ratio ours / baseline %s. Round trips per write (the writing "
					+ "thread's pgjdbc Sync messages, counting pass of %d writes): ours %.2f, baseline %.2f.%s%s",
					rounds, rounds == 1 ? "" : "s", writes, TABLE, latency.describe("%.0f"),
					plainLatency.describe("%.0f"), rate.describe("%.0f"), plainRate.describe("%.0f"),
					ratio.describe("%.2f"), counted, roundTrips.get(variant), roundTrips.get(plain),
					perShard(side, variant, roundTrips), check);
			figures.add(new Figure(name(side.mode, variant.shards),
					fmt("%.0f us (%.0f-%.0f), %.0f writes/s (plain JDBC, auto-commit, 1 database)", plainLatency.median(),
							plainLatency.min(), plainLatency.max(), plainRate.median()),
					fmt("%.0f us (%.0f-%.0f), %.0f writes/s (%.0f-%.0f), %.2f round trips", latency.median(),
							latency.min(), latency.max(), rate.median(), rate.min(), rate.max(),
							roundTrips.get(variant)),
					ratio.median(), GOAL, Figure.Verdict.NO_GOAL, note));
		}
		return figures;
	}

	/** For the largest tenancy: what one more shard adds, from it and the one-shard tenancy. */
	private static String perShard(Side side, Variant variant, Map<Variant, Double> roundTrips) {
		Variant one = side.variants.get(1);
		if (variant.shards != SHARDS[SHARDS.length - 1] || variant == one) {
			return "";
		}
		int extra = variant.shards - one.shards;
		double trips = (roundTrips.get(variant) - roundTrips.get(one)) / extra;
		double micros = (spread(variant.latencyMicros).median() - spread(one.latencyMicros).median()) / extra;
		return fmt(" Each shard beyond the first adds %.2f round trips and %.0f us (medians, %d shards against 1); "
				+ "the rest, %.2f round trips, is the directory's.", trips, micros, variant.shards,
				roundTrips.get(one) - trips);
	}

	/** After the run: every tenancy's shards consistent, no prepared transaction left on the server. */
	private static String check(Side side) {
		StringBuilder out = new StringBuilder();
		for (ShardTenancy tenancy : side.tenancies) {
			ReferenceDataReport report = tenancy.referenceTables().verify();
			if (!report.consistent()) {
				out.append(" NOT consistent after the run: ").append(report);
			}
		}
		try (Connection c = java.sql.DriverManager.getConnection(side.server.url("postgres"), side.server.user(),
				side.server.password());
				Statement st = c.createStatement();
				ResultSet rs = st.executeQuery("SELECT count(*) FROM pg_prepared_xacts")) {
			rs.next();
			if (rs.getLong(1) > 0) {
				out.append(fmt(" %d prepared transaction(s) left on the server after the run.", rs.getLong(1)));
			}
		}
		catch (SQLException ex) {
			out.append(" pg_prepared_xacts not read: ").append(ex.getMessage());
		}
		return out.isEmpty() ? " After the run every tenancy's verify() is consistent and no prepared transaction is left."
				: out.toString();
	}

	private static Spread spread(List<Double> values) {
		return Spread.of(values.stream().mapToDouble(Double::doubleValue).toArray());
	}

}
