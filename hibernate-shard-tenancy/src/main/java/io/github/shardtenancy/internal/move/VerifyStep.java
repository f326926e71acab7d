package io.github.shardtenancy.internal.move;

import java.sql.Connection;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;

import io.github.shardtenancy.MoveException;
import io.github.shardtenancy.MoveStep;
import io.github.shardtenancy.internal.topology.Topology;

/**
 * {@link MoveStep#VERIFIED}: inside the freeze, the target compared with the source. When this run froze the tenant
 * and ran the final catch-up itself, the target was verified equal to the source in a snapshot of the catch-up step
 * (the whole copy in its verifying round, then, in each round after it, the rows that round applied), and every
 * change since has a change-log entry the final catch-up applied: then the row counts of every table and, value by
 * value, the rows of the keys it applied are compared, which costs in proportion to the final lag, not to the tenant's
 * size (one connection per side, the counts of every table in one statement, both sides at once). Otherwise (a resumed move, a move without capture, or a revert) every row is checked,
 * as count and checksum per table. Source and target are read at the same time; on PostgreSQL each database computes
 * its own count and checksum instead of sending every row. With the dual read on, its registered queries then run on
 * source and target too ({@link ShadowReads#verify}), and must return the same rows.
 */
final class VerifyStep implements Step {

	@Override
	public void run(MoveRun run) {
		// A revert has no verified baseline of the reverse direction (the soak's rounds are not verified), so it
		// verifies every row.
		if (!run.finalCaughtUpHere || run.reverse) {
			verifyAll(run);
			return;
		}
		long started = System.nanoTime();
		Object[] sides = run.both(() -> run.sql(run.from, () -> read(run.from, null, run, true)),
				() -> run.sql(run.to, () -> read(run.to, null, run, true)));
		Side source = (Side) sides[0];
		Side target = (Side) sides[1];
		long rows = 0;
		int keys = 0;
		for (int i = 0; i < run.plans.size(); i++) {
			TablePlan table = run.plans.get(i);
			long count = source.counts()[i];
			long targetCount = target.counts()[i];
			if (count != targetCount) {
				throw new MoveException("Verification of tenant '" + run.tenantId() + "' failed for table "
						+ table.sqlName() + ": source '" + run.from.id() + "' has " + count + " rows, target '"
						+ run.to.id() + "' has " + targetCount, run.tenantId(), run.to.id(), -1, null);
			}
			requireSameRows(run, table, run.finalKeys.getOrDefault(table, Set.of()), source, target, i, "");
			rows += count;
			keys += run.finalKeys.getOrDefault(table, Set.of()).size();
		}
		run.step(MoveStep.VERIFIED, withDualRead(run,
				"rows=" + rows + " (counts, and the " + keys + " rows changed since the catch-up's verification) in "
						+ (System.nanoTime() - started) / 1_000_000 + " ms (counts " + source.countNanos() / 1_000_000
						+ " / " + target.countNanos() / 1_000_000 + " ms, rows " + source.rowsNanos() / 1_000_000
						+ " / " + target.rowsNanos() / 1_000_000 + " ms on source / target)"));
	}

	/**
	 * What one side of an incremental verification read: the tenant's row count per table (or {@code null}) and the
	 * rows of the compared keys as text, per table, in the order of the run's tables.
	 */
	record Side(long[] counts, List<Map<String, String>> rows, long countNanos, long rowsNanos) {
	}

	/**
	 * Reads one side of an incremental verification on one connection: the counts of every table in one statement
	 * (if asked) and the rows of the keys in {@link MoveRun#finalKeys} (or in {@code keys}).
	 * @param snapshot a connection to read on (the caller's snapshot, left open), or {@code null} for a connection of
	 * its own that reads every tenant's rows ({@link MoveSql#acrossTenants})
	 * @return what it read
	 */
	static Side read(Topology.Shard shard, Connection snapshot, MoveRun run, boolean count) throws SQLException {
		return read(shard, snapshot, run, run.finalKeys, count);
	}

	private static Side read(Topology.Shard shard, Connection snapshot, MoveRun run,
			Map<TablePlan, Set<String>> keys, boolean count) throws SQLException {
		MoveSql.SqlWork<Side> work = () -> {
			Connection c = snapshot;
			long started = System.nanoTime();
			long[] counts = count ? Checksums.counts(c, run.plans, run.tenantId()) : null;
			long counted = System.nanoTime();
			List<Map<String, String>> rows = new ArrayList<>();
			for (TablePlan table : run.plans) {
				Set<String> tableKeys = keys.getOrDefault(table, Set.of());
				rows.add(tableKeys.isEmpty() ? Map.of() : Checksums.rowsAsText(c, table, tableKeys, run.tenantId()));
			}
			return new Side(counts, rows, counted - started, System.nanoTime() - counted);
		};
		if (snapshot != null) {
			return work.run();
		}
		return MoveSql.withConnection(shard,
				c -> MoveSql.acrossTenants(shard, c, () -> read(shard, c, run, keys, count)));
	}

	/**
	 * The check of a catch-up round after the catch-up step's full verification: in the round's snapshot (the source
	 * connection, still in it) the rows of the keys the round applied, value by value, against the target's, which
	 * holds that snapshot's state for them (only the mover writes the target). Source and target are read at once.
	 * @throws MoveException on a difference, naming the table and the key
	 */
	static void verifyRound(MoveRun run, Connection source, Map<TablePlan, Set<String>> applied)
			throws SQLException {
		if (applied.isEmpty()) {
			return;
		}
		Object[] sides = run.both(() -> run.sql(run.to, () -> read(run.to, null, run, applied, false)),
				() -> run.sql(run.from, () -> read(run.from, source, run, applied, false)));
		for (int i = 0; i < run.plans.size(); i++) {
			TablePlan table = run.plans.get(i);
			requireSameRows(run, table, applied.getOrDefault(table, Set.of()), (Side) sides[1],
					(Side) sides[0], i, " (before the freeze)");
		}
	}

	private static void requireSameRows(MoveRun run, TablePlan table, Set<String> keys, Side source, Side target,
			int index, String when) {
		String difference = Checksums.firstDifference(keys, source.rows().get(index), target.rows().get(index));
		if (difference != null) {
			throw new MoveException("Verification of tenant '" + run.tenantId() + "' failed for table "
					+ table.sqlName() + when + " between source '" + run.from.id() + "' and target '" + run.to.id()
					+ "': " + difference, run.tenantId(), run.to.id(), -1, null);
		}
	}

	private static void verifyAll(MoveRun run) {
		long rows = 0;
		boolean inDatabase = Checksums.inDatabaseChecksum(run.from, run.to);
		for (TablePlan table : run.plans) {
			Object[] sums = run.both(
					() -> run.sql(run.from,
							() -> Checksums.countAndChecksum(run.from, table, run.tenantId(), inDatabase)),
					() -> run.sql(run.to, () -> Checksums.countAndChecksum(run.to, table, run.tenantId(), inDatabase)));
			long[] source = (long[]) sums[0];
			requireEqual(run, table, source, (long[]) sums[1], "");
			rows += source[0];
		}
		run.step(MoveStep.VERIFIED, withDualRead(run, "rows=" + rows));
	}

	/**
	 * Runs the dual read's registered queries on source and target (see {@link ShadowReads#verify}).
	 * @return the step data, with what the dual read verified appended
	 * @throws MoveException if a registered query's rows differ
	 */
	private static String withDualRead(MoveRun run, String stepData) {
		String verified = (run.dualRead != null) ? run.dualRead.verify(run) : null;
		return (verified != null) ? stepData + "; " + verified : stepData;
	}

	/**
	 * The full verification of the catch-up step, on the source connection of its last round (still in that round's
	 * snapshot) against the target (which holds that snapshot's state: only the mover writes it).
	 * @return rows verified
	 * @throws MoveException on a mismatch, naming the table
	 */
	static long verifySnapshot(MoveRun run, Connection source) throws SQLException {
		boolean inDatabase = Checksums.inDatabaseChecksum(run.from, run.to);
		long rows = 0;
		for (TablePlan table : run.plans) {
			Object[] sums = run.both(
					() -> run.sql(run.to, () -> Checksums.countAndChecksum(run.to, table, run.tenantId(), inDatabase)),
					() -> run.sql(run.from,
							() -> Checksums.countAndChecksum(source, inDatabase ? run.from.dialect() : null, table, run.tenantId())));
			long[] sourceSums = (long[]) sums[1];
			requireEqual(run, table, sourceSums, (long[]) sums[0], " (before the freeze)");
			rows += sourceSums[0];
		}
		return rows;
	}

	private static void requireEqual(MoveRun run, TablePlan table, long[] source, long[] target, String when) {
		if (source[0] != target[0] || source[1] != target[1]) {
			throw new MoveException("Verification of tenant '" + run.tenantId() + "' failed for table "
					+ table.sqlName() + when + ": source '" + run.from.id() + "' has " + source[0]
					+ " rows (checksum " + source[1] + "), target '" + run.to.id() + "' has " + target[0]
					+ " rows (checksum " + target[1] + ")", run.tenantId(), run.to.id(), -1, null);
		}
	}

}
