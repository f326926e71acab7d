package io.github.shardtenancy.internal.move;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;

import io.github.shardtenancy.internal.move.MoveSql.Progress;
import io.github.shardtenancy.internal.topology.Topology;
import org.jspecify.annotations.Nullable;

import static io.github.shardtenancy.internal.move.ChangeCapture.lag;
import static io.github.shardtenancy.internal.move.KeyedRows.delete;
import static io.github.shardtenancy.internal.move.KeyedRows.read;
import static io.github.shardtenancy.internal.move.KeyedRows.upsert;
import static io.github.shardtenancy.internal.move.MoveSql.chunks;
import static io.github.shardtenancy.internal.move.MoveSql.inTransaction;
import static io.github.shardtenancy.internal.move.MoveSql.pause;
import static io.github.shardtenancy.internal.move.MoveSql.reversed;
import static io.github.shardtenancy.internal.move.MoveSql.withConnection;

/**
 * One catch-up round of the online move: the change-log entries of a tenant visible in one snapshot of the source
 * applied to the target, then deleted from the log. Stateless; thread-safe.
 */
final class CatchUpRound {

	CatchUpRound() {
	}

	/**
	 * One catch-up round: applies every change-log entry of the tenant visible in one snapshot of the source, reading
	 * the logged rows from that same snapshot, then deletes exactly the applied entries from the log.
	 * <p>Why one snapshot for the entries and the rows, and no limit on the entries: every change committed after the
	 * copy's snapshot has a log entry committed with it, so for every key whose target row differs from the source's
	 * row in the snapshot, the snapshot also holds an entry. Applying all of them makes the target equal to that
	 * snapshot, which is consistent: deletes run children first and upserts parents first, so the foreign keys hold
	 * on the target at each statement (a write the target refuses is retried after the others, see {@code apply}). A
	 * subset of the entries (a limit) would break this: a parent's early entry can find the parent gone while the
	 * entry that removed its child is not in the subset.
	 * <p>Target writes are committed once per round, or every chunk of at most {@code batchSize} rows after an
	 * integrity violation (deletes first, so that a unique value a deleted row freed can be taken by an upserted one,
	 * see {@code apply}); the log entries are deleted only after the last commit. Re-applying an
	 * entry is harmless (it copies the row's state), so a crash anywhere loses nothing. Entries committed during the
	 * round, also with smaller sequence numbers, stay in the log for the next round.
	 * @return the lag (entries in the log) after the round
	 * @throws SQLException on a database error
	 */
	static long catchUpRound(Topology.Shard from, Topology.Shard to, String tenantId,
			List<TablePlan> tables, int batchSize, Duration throttle, Progress progress) throws SQLException {
		return catchUpRound(from, to, tenantId, tables, batchSize, throttle, progress, null, null);
	}

	/**
	 * Compares, after a catch-up round's apply, the source in the round's snapshot with the target, per table.
	 */
	@FunctionalInterface
	interface SnapshotCheck {

		/**
		 * @param source the source connection, still in the round's snapshot
		 * @throws SQLException on a database error, or to report a mismatch
		 */
		void check(Connection source) throws SQLException;

	}

	/**
	 * A catch-up round as {@link #catchUpRound(Topology.Shard, Topology.Shard, String, List, int, Duration,
	 * Progress)}, that can also run a check in the round's snapshot once the target holds that snapshot's state, and
	 * collect the keys it applied.
	 * @param check run after the apply, on the source connection still in the round's snapshot, or {@code null}
	 * @param applied receives the keys applied, per table, or {@code null}
	 * @return the lag after the round
	 * @throws SQLException on a database error, or what the check threw
	 */
	static long catchUpRound(Topology.Shard from, Topology.Shard to, String tenantId,
			List<TablePlan> tables, int batchSize, Duration throttle, Progress progress, SnapshotCheck check,
			Map<TablePlan, Set<String>> applied) throws SQLException {
		List<Long> seqs = new ArrayList<>();
		withConnection(from, source -> {
			int isolation = source.getTransactionIsolation();
			from.dialect().beginSnapshotRead(source);
			Map<TablePlan, LinkedHashSet<String>> keys = new LinkedHashMap<>();
			try (PreparedStatement ps = source.prepareStatement("SELECT seq, table_name, row_key FROM shard_change "
					+ "WHERE tenant_id = ? ORDER BY seq")) {
				ps.setString(1, tenantId);
				ps.setFetchSize(Math.min(batchSize, 5000));
				try (ResultSet rs = ps.executeQuery()) {
					while (rs.next()) {
						seqs.add(rs.getLong(1));
						TablePlan table = find(tables, rs.getString(2));
						if (table != null) { // a table captured for another move's table list: not moved here
							keys.computeIfAbsent(table, t -> new LinkedHashSet<>()).add(rs.getString(3));
						}
					}
				}
			}
			if (!keys.isEmpty()) {
				apply(source, to, tenantId, tables, keys, batchSize, throttle, progress);
			}
			if (applied != null) {
				keys.forEach((table, tableKeys) -> applied.computeIfAbsent(table, t -> new LinkedHashSet<>())
					.addAll(tableKeys));
			}
			if (check != null) {
				check.check(source);
			}
			source.commit();
			source.setAutoCommit(true);
			source.setTransactionIsolation(isolation);
			return null;
		});
		if (!seqs.isEmpty()) {
			withConnection(from, c -> inTransaction(c, () -> {
				// One statement per thousand entries, not one per entry.
				for (List<Long> chunk : chunks(seqs, 1000)) {
					try (PreparedStatement ps = c.prepareStatement("DELETE FROM shard_change WHERE seq IN ("
							+ String.join(", ", chunk.stream().map(seq -> "?").toList()) + ")")) {
						int i = 1;
						for (long seq : chunk) {
							ps.setLong(i++, seq);
						}
						ps.executeUpdate();
					}
				}
				return null;
			}));
		}
		return lag(from, tenantId);
	}

	/**
	 * Applies a round's keys to the target: first the deletes of the keys whose rows are gone in the snapshot
	 * (children first), then the upserts of the others (parents first). Each chunk of keys is read once on the
	 * source, and its rows kept for the upserts; in a round of more than {@link #KEPT_ROWS} keys they are read again,
	 * chunk by chunk, when they are written, so that a round's memory stays bounded (the keys themselves are held).
	 * <p>Deletes come first so that a unique value (other than the primary key) freed by a deleted row can be taken by
	 * a row inserted or updated in the same round: upserting first made the target raise a unique violation and the
	 * move fail. The round's writes run in one transaction of the target, committed once ({@link #applyAtOnce}). If
	 * the target refuses one with an integrity violation (SQLSTATE class 23), that transaction is rolled back and the
	 * round applied chunk by chunk, each committed ({@link #applyByChunks}): a chunk the target refuses is rolled back
	 * and its rows retried one at a time after the other chunks, in passes, until a pass applies none. This covers a
	 * child moved in the round from a deleted parent to another (its parent's delete waits for the child's upsert), a
	 * new parent a deferred row's children need, and a unique value moved from one row to another by UPDATEs
	 * whichever order their log entries came in. What still fails, with the target's violation, is a cycle: unique
	 * values exchanged between rows within one round (A takes B's value and B takes A's) cannot be reached one row at
	 * a time without a temporary value, nor can a row take a value another tenant's row holds on the target.
	 * Re-applying is harmless, so the committed chunks of a failed round are simply applied again by the next attempt.
	 */
	static void apply(Connection source, Topology.Shard to, String tenantId, List<TablePlan> tables,
			Map<TablePlan, LinkedHashSet<String>> keys, int batchSize, Duration throttle, Progress progress)
			throws SQLException {
		int chunkSize = Math.min(batchSize, 500);
		boolean keep = keys.values().stream().mapToInt(Set::size).sum() <= KEPT_ROWS;
		Map<TablePlan, Map<String, Object[]>> kept = keep ? new LinkedHashMap<>() : null;
		Map<TablePlan, List<String>> gone = new LinkedHashMap<>();
		Map<TablePlan, List<String>> present = new LinkedHashMap<>();
		for (TablePlan table : tables) {
			LinkedHashSet<String> tableKeys = keys.get(table);
			if (tableKeys == null) {
				continue;
			}
			for (List<String> chunk : chunks(new ArrayList<>(tableKeys), chunkSize)) {
				Map<String, Object[]> found = read(source, table, chunk, tenantId);
				for (String key : chunk) {
					(found.containsKey(key) ? present : gone).computeIfAbsent(table, t -> new ArrayList<>()).add(key);
				}
				if (kept != null) {
					kept.computeIfAbsent(table, t -> new LinkedHashMap<>()).putAll(found);
				}
			}
		}
		withConnection(to, target -> {
			target.setAutoCommit(false);
			to.dialect().beginMover(target, tenantId);
			Round round = new Round(source, target, to, tenantId, tables, gone, present, kept, chunkSize);
			if (!applyAtOnce(round, throttle, progress)) {
				applyByChunks(round, throttle, progress);
			}
			to.dialect().end(target);
			target.setAutoCommit(true);
			return null;
		});
	}

	/** Rows of a round kept from its first read for the upserts, at most; a larger round reads them again. */
	private static final int KEPT_ROWS = 10_000;

	/**
	 * What a round writes to the target, on a mover connection in a transaction: the keys to delete and the keys
	 * whose rows to upsert, per table, with those rows as first read ({@code kept}) or, in a round of more than
	 * {@link #KEPT_ROWS} keys ({@code kept} {@code null}), read again on the source, in the round's snapshot, chunk by
	 * chunk.
	 */
	private record Round(Connection source, Connection target, Topology.Shard to, String tenantId,
			List<TablePlan> tables, Map<TablePlan, List<String>> gone, Map<TablePlan, List<String>> present,
			@Nullable Map<TablePlan, Map<String, Object[]>> kept, int chunkSize) {

		/** @return the source's rows of some of the table's present keys, in key order */
		List<Object[]> rows(TablePlan table, List<String> keys) throws SQLException {
			Map<String, Object[]> found = this.kept != null ? this.kept.getOrDefault(table, Map.of())
					: read(this.source, table, keys, this.tenantId);
			return keys.stream().map(found::get).filter(Objects::nonNull).toList();
		}

		/**
		 * Before the writes into a table: the dialect's switch for the mover's writes (the application's triggers off
		 * where it can), needed again after every commit and rollback.
		 * @return whether the writes run without the table's triggers
		 */
		boolean withoutTriggers(TablePlan table) throws SQLException {
			return this.to.dialect().moverWritesWithoutTriggers(this.target, table.sqlName());
		}

		/**
		 * Checks the foreign keys of the rows written without the target's triggers (and so without the keys' own
		 * checks), as the bulk copy does after its copy: a row whose referenced row is not on the target (a parent in
		 * a table the move does not copy, reference data missing there) fails with 23503, as the key's check would
		 * have. Only the written rows are checked, by key, not the tenant's whole table; deleted rows need no check:
		 * the rows that referenced them on the target are the tenant's, and their own changes are in the same round.
		 * @param written per table, the key values of the rows written without triggers
		 */
		void checkForeignKeys(Map<TablePlan, List<Object[]>> written) throws SQLException {
			for (Map.Entry<TablePlan, List<Object[]>> table : written.entrySet()) {
				TablePlan plan = table.getKey();
				List<String> keyColumns = plan.keys().stream().map(TablePlan.KeyColumn::name).toList();
				for (List<Object[]> keys : chunks(table.getValue(), FOREIGN_KEY_CHECK_KEYS)) {
					this.to.dialect()
						.checkForeignKeys(this.target, plan.sqlName(), plan.tenantColumn(), this.tenantId, keyColumns,
								keys);
				}
			}
		}

	}

	/**
	 * @param rows rows of the table, each with one value per column
	 * @return each row's key values, in key order
	 */
	private static List<Object[]> keysOf(TablePlan table, List<Object[]> rows) {
		int[] keyIndexes = table.keys().stream().mapToInt(k -> MoveSql.indexOf(table.columns(), k.name())).toArray();
		List<Object[]> keys = new ArrayList<>(rows.size());
		for (Object[] row : rows) {
			Object[] key = new Object[keyIndexes.length];
			for (int i = 0; i < keyIndexes.length; i++) {
				key[i] = row[keyIndexes[i]];
			}
			keys.add(key);
		}
		return keys;
	}

	/** Keys per statement of the foreign-key check, at most. */
	private static final int FOREIGN_KEY_CHECK_KEYS = 10_000;

	/**
	 * The round's writes in the target's current transaction, with one commit: the dialect's switch once per table
	 * and kind of write, then the deletes, the upserts and the foreign-key check. Progress (the mover's heartbeat and
	 * ownership check) is reported after every chunk, the throttle paused after every chunk.
	 * @return {@code true} once committed; {@code false} if the target refused a write with an integrity violation,
	 * the transaction then rolled back (nothing of the round written) and the mover's mark begun again
	 * @throws SQLException any other database error
	 */
	private static boolean applyAtOnce(Round round, Duration throttle, Progress progress) throws SQLException {
		Connection target = round.target();
		Map<TablePlan, List<Object[]>> withoutTriggers = new LinkedHashMap<>();
		int rows = 0;
		try {
			for (TablePlan table : reversed(round.tables())) {
				List<String> keys = round.gone().getOrDefault(table, List.of());
				if (!keys.isEmpty()) {
					round.withoutTriggers(table);
				}
				for (List<String> chunk : chunks(keys, round.chunkSize())) {
					delete(target, table, chunk, round.tenantId());
					rows += chunk.size();
					progress.batchDone("catch-up rows=" + rows);
					pause(throttle);
				}
			}
			for (TablePlan table : round.tables()) {
				List<String> present = round.present().getOrDefault(table, List.of());
				boolean checkKeys = !present.isEmpty() && round.withoutTriggers(table);
				for (List<String> chunk : chunks(present, round.chunkSize())) {
					List<Object[]> upserted = round.rows(table, chunk);
					upsert(target, round.to(), table, upserted);
					if (checkKeys) {
						withoutTriggers.computeIfAbsent(table, t -> new ArrayList<>()).addAll(keysOf(table, upserted));
					}
					rows += chunk.size();
					progress.batchDone("catch-up rows=" + rows);
					pause(throttle);
				}
			}
			round.checkForeignKeys(withoutTriggers);
			// Inside the try: a deferred constraint is checked by the commit.
			target.commit();
		}
		catch (SQLException ex) {
			if (!isIntegrityViolation(ex)) {
				throw ex;
			}
			target.rollback();
			round.to().dialect().beginMover(target, round.tenantId());
			return false;
		}
		return true;
	}

	/**
	 * The round's writes chunk by chunk, each chunk committed; a chunk the target refuses with an integrity violation
	 * is retried row by row after the others ({@link #apply}).
	 * @throws SQLException a database error, or the last violation once a pass of the deferred rows applies none
	 */
	private static void applyByChunks(Round round, Duration throttle, Progress progress) throws SQLException {
		Connection target = round.target();
		TargetWriter writer = new TargetWriter(target, round.to(), round.tenantId(), throttle, progress);
		Map<TablePlan, List<String>> deferredDeletes = new LinkedHashMap<>();
		Map<TablePlan, List<Object[]>> deferredUpserts = new LinkedHashMap<>();
		Map<TablePlan, List<Object[]>> withoutTriggers = new LinkedHashMap<>();
		for (TablePlan table : reversed(round.tables())) {
			for (List<String> chunk : chunks(round.gone().getOrDefault(table, List.of()), round.chunkSize())) {
				if (!writer.attempt(chunk.size(), () -> {
					round.withoutTriggers(table);
					delete(target, table, chunk, round.tenantId());
				})) {
					deferredDeletes.computeIfAbsent(table, t -> new ArrayList<>()).addAll(chunk);
				}
			}
		}
		for (TablePlan table : round.tables()) {
			for (List<String> keys : chunks(round.present().getOrDefault(table, List.of()), round.chunkSize())) {
				List<Object[]> chunk = round.rows(table, keys);
				if (!writer.attempt(chunk.size(), () -> {
					if (round.withoutTriggers(table)) {
						withoutTriggers.computeIfAbsent(table, t -> new ArrayList<>()).addAll(keysOf(table, chunk));
					}
					upsert(target, round.to(), table, chunk);
				})) {
					deferredUpserts.computeIfAbsent(table, t -> new ArrayList<>()).addAll(chunk);
				}
			}
		}
		while (!deferredDeletes.isEmpty() || !deferredUpserts.isEmpty()) {
			int applied = 0;
			for (TablePlan table : round.tables()) {
				applied += retryOneByOne(deferredUpserts, table, row -> writer.attempt(1, () -> {
					if (round.withoutTriggers(table)) {
						withoutTriggers.computeIfAbsent(table, t -> new ArrayList<>())
							.addAll(keysOf(table, Collections.singletonList(row)));
					}
					upsert(target, round.to(), table, Collections.singletonList(row));
				}));
			}
			for (TablePlan table : reversed(round.tables())) {
				applied += retryOneByOne(deferredDeletes, table, key -> writer.attempt(1, () -> {
					round.withoutTriggers(table);
					delete(target, table, List.of(key), round.tenantId());
				}));
			}
			if (applied == 0) {
				throw writer.lastViolation;
			}
		}
		round.checkForeignKeys(withoutTriggers);
		target.commit();
	}

	/** One write to the target, committed on success. */
	interface TargetWork {

		void run() throws SQLException;

	}

	/** An attempt of one deferred row. */
	interface RowAttempt<T> {

		boolean apply(T row) throws SQLException;

	}

	/** Retries a table's deferred rows one at a time. @return how many were applied (and removed) */
	static <T> int retryOneByOne(Map<TablePlan, List<T>> deferred, TablePlan table, RowAttempt<T> attempt)
			throws SQLException {
		List<T> rows = deferred.get(table);
		if (rows == null) {
			return 0;
		}
		int applied = 0;
		for (java.util.Iterator<T> it = rows.iterator(); it.hasNext();) {
			if (attempt.apply(it.next())) {
				it.remove();
				applied++;
			}
		}
		if (rows.isEmpty()) {
			deferred.remove(table);
		}
		return applied;
	}

	/**
	 * The catch-up's writes to the target on a mover connection: each attempt is committed, or, refused with an
	 * integrity violation, rolled back (back to the last commit: only that attempt) and reported, so that the caller
	 * can retry its rows later.
	 */
	static final class TargetWriter {

		private final Connection target;

		private final Topology.Shard to;

		private final String tenantId;

		private final Duration throttle;

		private final Progress progress;

		private long written;

		private SQLException lastViolation;

		TargetWriter(Connection target, Topology.Shard to, String tenantId, Duration throttle,
				Progress progress) {
			this.target = target;
			this.to = to;
			this.tenantId = tenantId;
			this.throttle = throttle;
			this.progress = progress;
		}

		/**
		 * @return {@code true} if the work was committed, {@code false} if the target refused it with an integrity
		 * violation (rolled back)
		 * @throws SQLException any other database error
		 */
		boolean attempt(int rows, TargetWork work) throws SQLException {
			if (rows == 0) {
				return true;
			}
			try {
				work.run();
			}
			catch (SQLException ex) {
				if (!isIntegrityViolation(ex)) {
					throw ex;
				}
				this.target.rollback();
				this.to.dialect().beginMover(this.target, this.tenantId);
				this.lastViolation = ex;
				return false;
			}
			this.written = commit(this.target, this.to, this.tenantId, this.written, rows, this.throttle,
					this.progress);
			return true;
		}

	}

	/** @return whether a failure, or an exception chained to it, has an SQLSTATE of class 23 (integrity violation) */
	static boolean isIntegrityViolation(SQLException ex) {
		for (Throwable t = ex; t != null; t = t.getCause()) {
			if (t instanceof SQLException sql) {
				for (SQLException next = sql; next != null; next = next.getNextException()) {
					if (next.getSQLState() != null && next.getSQLState().startsWith("23")) {
						return true;
					}
				}
			}
		}
		return false;
	}

	static long commit(Connection target, Topology.Shard to, String tenantId, long written, int rows,
			Duration throttle, Progress progress) throws SQLException {
		target.commit();
		to.dialect().beginMover(target, tenantId);
		progress.batchDone("catch-up rows=" + (written + rows));
		pause(throttle);
		return written + rows;
	}

	static TablePlan find(List<TablePlan> tables, String loggedName) {
		String bare = loggedName.contains(".") ? loggedName.substring(loggedName.lastIndexOf('.') + 1) : loggedName;
		for (TablePlan table : tables) {
			if (table.name().equalsIgnoreCase(bare)) {
				return table;
			}
		}
		return null;
	}

}
