package io.github.shardtenancy.internal.move;

import java.sql.Connection;
import java.sql.SQLException;
import java.util.Set;

import io.github.shardtenancy.MoveException;
import io.github.shardtenancy.MoveStep;

/**
 * {@link MoveStep#VERIFIED}: inside the freeze, the target compared with the source. When this run froze the tenant
 * and ran the final catch-up itself, the target was verified equal to the source in the catch-up step's last
 * snapshot, and every change since has a change-log entry the final catch-up applied: then the row counts of every
 * table and, value by value, the rows of the keys it applied are compared, which costs in proportion to the final
 * lag, not to the tenant's size. Otherwise (a resumed move, a move without capture, or a revert) every row is checked,
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
		long rows = 0;
		int keys = 0;
		for (TablePlan table : run.plans) {
			Object[] counts = run.both(
					() -> run.sql(run.from, () -> Checksums.count(run.from, table, run.tenantId())),
					() -> run.sql(run.to, () -> Checksums.count(run.to, table, run.tenantId())));
			long count = (Long) counts[0];
			long targetCount = (Long) counts[1];
			if (count != targetCount) {
				throw new MoveException("Verification of tenant '" + run.tenantId() + "' failed for table "
						+ table.sqlName() + ": source '" + run.from.id() + "' has " + count + " rows, target '"
						+ run.to.id() + "' has " + targetCount, run.tenantId(), run.to.id(), -1, null);
			}
			Set<String> changed = run.finalKeys.getOrDefault(table, Set.of());
			String difference = run.sql(run.from,
					() -> Checksums.compareRows(run.from, run.to, table, changed, run.tenantId()));
			if (difference != null) {
				throw new MoveException("Verification of tenant '" + run.tenantId() + "' failed for table "
						+ table.sqlName() + " between source '" + run.from.id() + "' and target '" + run.to.id()
						+ "': " + difference, run.tenantId(), run.to.id(), -1, null);
			}
			rows += count;
			keys += changed.size();
		}
		run.step(MoveStep.VERIFIED, withDualRead(run,
				"rows=" + rows + " (counts, and the " + keys + " rows changed since the catch-up's verification)"));
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
