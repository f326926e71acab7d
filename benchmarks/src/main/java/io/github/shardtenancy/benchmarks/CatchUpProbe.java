package io.github.shardtenancy.benchmarks;

import static io.github.shardtenancy.benchmarks.ResultsTable.fmt;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;

import javax.sql.DataSource;

/**
 * The first catch-up round of one online move, measured on the source shard's change log ({@code shard_change}) from
 * the moment the move recorded COPIED: the backlog then (the tenant's entries up to the log's last sequence number,
 * what the copy's writers left), the time until none of those entries is left (the round applies every entry its
 * snapshot holds and deletes them in one transaction at its end), and the entries the writers logged meanwhile. Its
 * drain rate (backlog over time) against the writers' rate (entries logged over the same time) is what the catch-up
 * can apply per second compared with what the writers produce. Polls every 5 ms on a thread of its own; thread-safe.
 */
final class CatchUpProbe {

	private static final String LAST = "SELECT COALESCE(MAX(seq), 0) FROM shard_change";

	private static final String LEFT = "SELECT COUNT(*) FROM shard_change WHERE tenant_id = ? AND seq <= ?";

	private volatile double drainRate = Double.NaN;

	private volatile double writeRate = Double.NaN;

	private volatile long backlog = -1;

	private volatile double seconds = Double.NaN;

	private volatile String failure;

	private CatchUpProbe() {
	}

	/**
	 * Starts measuring; returns at once.
	 * @param source the source shard's pool
	 * @param tenant the moving tenant
	 * @return the probe, filled in once the first round's entries are gone (or after 2 minutes, with a failure)
	 */
	static CatchUpProbe start(DataSource source, String tenant) {
		CatchUpProbe probe = new CatchUpProbe();
		long started = System.nanoTime();
		Thread t = new Thread(() -> probe.measure(source, tenant, started), "bench-move-catch-up-probe");
		t.setDaemon(true);
		t.start();
		return probe;
	}

	private void measure(DataSource source, String tenant, long started) {
		try (Connection c = source.getConnection()) {
			c.setAutoCommit(true);
			long last = single(c, LAST, null, 0);
			long left = single(c, LEFT, tenant, last);
			this.backlog = left;
			while (left > 0) {
				if (System.nanoTime() - started > 120_000_000_000L) {
					this.failure = "the first catch-up round had not applied its entries after 2 minutes";
					return;
				}
				Thread.sleep(5);
				left = single(c, LEFT, tenant, last);
			}
			double elapsed = (System.nanoTime() - started) / 1e9;
			long logged = single(c, LAST, null, 0) - last;
			this.seconds = elapsed;
			this.drainRate = this.backlog / elapsed;
			this.writeRate = logged / elapsed;
		}
		catch (SQLException ex) {
			this.failure = ex.toString();
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			this.failure = "interrupted";
		}
	}

	private static long single(Connection c, String sql, String tenant, long seq) throws SQLException {
		try (PreparedStatement ps = c.prepareStatement(sql)) {
			if (tenant != null) {
				ps.setString(1, tenant);
				ps.setLong(2, seq);
			}
			try (ResultSet rs = ps.executeQuery()) {
				rs.next();
				return rs.getLong(1);
			}
		}
	}

	/**
	 * @param probes one per move, {@code null} for a move that did not reach COPIED
	 * @param database the shards' database, for the name
	 * @param writers how many writers ran
	 * @return the figure: the median over the moves of drain rate over the writers' rate
	 */
	static Figure figure(CatchUpProbe[] probes, String database, int writers) {
		String name = fmt("%s, %s (first round after the copy, composite key table included, %d writers)",
				MoveFigure.CATCH_UP, database, writers);
		List<double[]> measured = new ArrayList<>();
		List<String> failures = new ArrayList<>();
		for (CatchUpProbe probe : probes) {
			if (probe == null) {
				continue;
			}
			if (probe.failure != null) {
				failures.add(probe.failure);
			}
			else if (Double.isFinite(probe.drainRate) && probe.backlog > 0 && probe.writeRate > 0) {
				measured.add(new double[] { probe.drainRate, probe.writeRate, probe.drainRate / probe.writeRate,
						probe.backlog, probe.seconds });
			}
		}
		if (measured.isEmpty()) {
			return Figure.notMeasured(name, MoveFigure.CATCH_UP_GOAL,
					failures.isEmpty() ? "no move left a backlog for its first catch-up round" : failures.get(0));
		}
		Spread drain = Spread.of(measured.stream().mapToDouble((m) -> m[0]).toArray());
		Spread write = Spread.of(measured.stream().mapToDouble((m) -> m[1]).toArray());
		Spread ratio = Spread.of(measured.stream().mapToDouble((m) -> m[2]).toArray());
		Spread backlog = Spread.of(measured.stream().mapToDouble((m) -> m[3]).toArray());
		Spread seconds = Spread.of(measured.stream().mapToDouble((m) -> m[4]).toArray());
		return new Figure(name, fmt("%.0f entries/s (writers)", write.median()),
				fmt("%.0f entries/s (catch-up)", drain.median()), ratio.median(), MoveFigure.CATCH_UP_GOAL,
				Figure.verdict(ratio.median() >= 10),
				fmt("Per move (%d measured%s): the tenant's change-log entries on the source when COPIED was recorded "
						+ "(backlog %s), over the time until the first catch-up round had applied and deleted them "
						+ "(%s s), against the entries the writers logged in that time (%s entries/s); ratio %s. "
						+ "Each writer's iteration logs up to 3 entries in two transactions: the order's update and a "
						+ "new line, then an item of bench_line_item (primary key (order_id, line_no)) added, changed "
						+ "or removed. The round's "
						+ "snapshot also holds entries logged after COPIED, so the drain rate is a lower bound.",
						measured.size(), failures.isEmpty() ? "" : ", " + failures.size() + " failed: " + failures.get(0),
						backlog.describe("%.0f"), seconds.describe("%.2f"), write.describe("%.0f"),
						ratio.describe("%.1f")));
	}

}
