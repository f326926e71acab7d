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
import java.util.ServiceLoader;
import java.util.Set;

import io.github.shardtenancy.TenantIds;
import io.github.shardtenancy.spi.BulkCopier;
import io.github.shardtenancy.spi.FenceDialect;
import io.github.shardtenancy.internal.topology.Topology;

/**
 * The row work of the online mover on the shards: change capture on and off, bulk copy from a snapshot (through a
 * {@link BulkCopier} found on the class path, such as PostgreSQL's {@code COPY}, else with multi-row {@code INSERT}s),
 * catch-up from the change log, checksums and deletes. All writes to tenant tables go through a mover connection
 * ({@link io.github.shardtenancy.spi.FenceDialect#beginMover}), re-marked after every commit because the mark is
 * transaction-scoped on PostgreSQL. Stateless; thread-safe.
 */
public final class TenantRows {

	/**
	 * Called after every batch, with a description of the progress; may throw to stop the work (lost ownership).
	 */
	@FunctionalInterface
	public interface Progress {

		/** @param stepData progress, e.g. {@code table=NOTE rows=2000} */
		void batchDone(String stepData);

	}

	/** The bulk copiers on the class path (e.g. PostgreSQL COPY), found once. */
	private static final List<BulkCopier> COPIERS = ServiceLoader.load(BulkCopier.class, TenantRows.class.getClassLoader())
		.stream()
		.map(ServiceLoader.Provider::get)
		.toList();

	/** Rows per multi-row INSERT of the bulk copy, at most. */
	private static final int MAX_ROWS_PER_INSERT = 1000;

	/** Bind parameters per statement, at most (PostgreSQL's protocol allows 32767). */
	private static final int MAX_PARAMETERS = 30_000;

	private TenantRows() {
	}

	/**
	 * @return how {@link #copy} copies between two shards: the simple class name of the {@link BulkCopier} it uses,
	 * or {@code multi-row INSERT}
	 * @throws SQLException if a shard cannot be reached
	 */
	public static String copyMethod(Topology.Shard from, Topology.Shard to) throws SQLException {
		try (Connection source = from.dataSource().getConnection();
				Connection target = to.dataSource().getConnection()) {
			BulkCopier copier = bulkCopier(source, target);
			return (copier != null) ? copier.getClass().getSimpleName() : "multi-row INSERT";
		}
	}

	/** @return the first bulk copier that supports both connections, or {@code null} (multi-row INSERTs then) */
	private static BulkCopier bulkCopier(Connection source, Connection target) throws SQLException {
		for (BulkCopier copier : COPIERS) {
			if (copier.supports(source, target)) {
				return copier;
			}
		}
		return null;
	}

	/** @return {@code INSERT INTO t (c1, c2) VALUES (?, ?), (?, ?), ...} with {@code rows} rows */
	private static String multiRowInsert(TablePlan table, int rows) {
		String row = "(" + String.join(", ", table.columns().stream().map(c -> "?").toList()) + ")";
		StringBuilder sql = new StringBuilder("INSERT INTO ").append(table.sqlName())
			.append(" (")
			.append(table.columnList())
			.append(") VALUES ");
		for (int i = 0; i < rows; i++) {
			sql.append(i == 0 ? "" : ", ").append(row);
		}
		return sql.toString();
	}

	private static void bindRows(PreparedStatement insert, List<Object[]> rows) throws SQLException {
		int i = 1;
		for (Object[] row : rows) {
			for (Object value : row) {
				insert.setObject(i++, value);
			}
		}
	}

	/**
	 * Installs the capture triggers and lists the tenant in {@code shard_capture}, in a transaction that also updates
	 * the tenant's fence row: it waits for the tenant's writes in flight (which hold that row's lock), so every write
	 * that commits afterwards is logged.
	 * @param shard the source shard
	 * @param tenantId the tenant
	 * @param moveId the move, recorded with the capture
	 * @param tables the tables
	 * @throws SQLException on a database error (unsupported capture included)
	 */
	public static void captureOn(Topology.Shard shard, String tenantId, String moveId, List<TablePlan> tables)
			throws SQLException {
		try (Connection c = shard.dataSource().getConnection()) {
			c.setAutoCommit(true);
			for (TablePlan table : tables) {
				shard.dialect().installChangeCapture(c, table.sqlName(), table.tenantColumn());
			}
			inTransaction(c, () -> {
				boolean present;
				try (PreparedStatement ps = c.prepareStatement("SELECT COUNT(*) FROM shard_capture WHERE tenant_id = ?")) {
					ps.setString(1, tenantId);
					try (ResultSet rs = ps.executeQuery()) {
						rs.next();
						present = rs.getLong(1) > 0;
					}
				}
				if (!present) {
					try (PreparedStatement ps = c.prepareStatement(
							"INSERT INTO shard_capture (tenant_id, move_id, since) VALUES (?, ?, CURRENT_TIMESTAMP)")) {
						ps.setString(1, tenantId);
						ps.setString(2, moveId);
						ps.executeUpdate();
					}
				}
				try (PreparedStatement ps = c
					.prepareStatement("UPDATE shard_fence SET updated_at = CURRENT_TIMESTAMP WHERE tenant_id = ?")) {
					ps.setString(1, tenantId);
					ps.executeUpdate();
				}
				return null;
			});
		}
	}

	/**
	 * Stops capturing the tenant's writes on a shard and drops its change log. It first locks the tenant's fence row,
	 * which every fenced write holds until it commits: so writes in flight finish (and their change-log entries are
	 * dropped with the rest) and later writes wait, then see capture off. Without the lock, an entry written by a
	 * transaction that commits after the delete would outlive the move.
	 * @param shard the source shard
	 * @param tenantId the tenant
	 * @throws SQLException on a database error
	 */
	public static void captureOff(Topology.Shard shard, String tenantId) throws SQLException {
		try (Connection c = shard.dataSource().getConnection()) {
			inTransaction(c, () -> {
				for (String sql : List.of("SELECT state FROM shard_fence WHERE tenant_id = ? FOR UPDATE",
						"DELETE FROM shard_capture WHERE tenant_id = ?", "DELETE FROM shard_change WHERE tenant_id = ?")) {
					try (PreparedStatement ps = c.prepareStatement(sql)) {
						ps.setString(1, tenantId);
						ps.execute();
					}
				}
				return null;
			});
		}
	}

	/**
	 * @param shard the source shard
	 * @param tenantId the tenant
	 * @return the change-log entries of the tenant not yet applied
	 * @throws SQLException on a database error
	 */
	public static long lag(Topology.Shard shard, String tenantId) throws SQLException {
		try (Connection c = shard.dataSource().getConnection();
				PreparedStatement ps = c.prepareStatement("SELECT COUNT(*) FROM shard_change WHERE tenant_id = ?")) {
			ps.setString(1, tenantId);
			try (ResultSet rs = ps.executeQuery()) {
				rs.next();
				return rs.getLong(1);
			}
		}
	}

	/**
	 * Deletes a tenant's rows from a shard, children first, in one transaction on a mover connection.
	 * @param shard the shard
	 * @param tenantId the tenant
	 * @param tables the tables, parents first
	 * @return rows deleted
	 * @throws SQLException on a database error
	 */
	public static long delete(Topology.Shard shard, String tenantId, List<TablePlan> tables) throws SQLException {
		try (Connection c = shard.dataSource().getConnection()) {
			try {
				return inTransaction(c, () -> {
					shard.dialect().beginMover(c, tenantId);
					long deleted = 0;
					for (TablePlan table : reversed(tables)) {
						try (PreparedStatement ps = c.prepareStatement(
								"DELETE FROM " + table.sqlName() + " WHERE " + table.tenantColumn() + " = ?")) {
							ps.setString(1, tenantId);
							deleted += ps.executeUpdate();
						}
					}
					return deleted;
				});
			}
			finally {
				shard.dialect().end(c);
			}
		}
	}

	/**
	 * Work run inside {@link #inTransaction} or {@link #acrossTenants}.
	 * @param <T> its result
	 */
	@FunctionalInterface
	public interface SqlWork<T> {

		/**
		 * @return the result
		 * @throws SQLException on a database error
		 */
		T run() throws SQLException;

	}

	/**
	 * Runs work in one transaction on the connection: commits it, or rolls it back and rethrows; auto-commit is on
	 * again afterwards either way.
	 */
	private static <T> T inTransaction(Connection c, SqlWork<T> work) throws SQLException {
		c.setAutoCommit(false);
		try {
			T result = work.run();
			c.commit();
			return result;
		}
		catch (SQLException | RuntimeException ex) {
			c.rollback();
			throw ex;
		}
		finally {
			c.setAutoCommit(true);
		}
	}

	/**
	 * Copies a tenant's rows from one snapshot of the source to the target, table by table (parents first), committing
	 * on the target every {@code batchSize} rows. The target must hold none of the tenant's rows.
	 * @return rows copied per table
	 * @throws SQLException on a database error
	 */
	public static Map<String, Long> copy(Topology.Shard from, Topology.Shard to, String tenantId,
			List<TablePlan> tables, int batchSize, Duration throttle, Progress progress) throws SQLException {
		Map<String, Long> copied = new LinkedHashMap<>();
		try (Connection source = from.dataSource().getConnection();
				Connection target = to.dataSource().getConnection()) {
			int isolation = source.getTransactionIsolation();
			from.dialect().beginSnapshotRead(source);
			try {
				target.setAutoCommit(false);
				to.dialect().beginMover(target, tenantId);
				BulkCopier copier = bulkCopier(source, target);
				if (copier != null) {
					TenantIds.requireValid(tenantId); // inlined as a literal: letters, digits and . _ : - only
				}
				for (TablePlan table : tables) {
					if (copier != null) {
						String select = "SELECT " + table.columnList() + " FROM " + table.sqlName() + " WHERE "
								+ table.tenantColumn() + " = '" + tenantId.replace("'", "''") + "'";
						long rows = copier.copy(source, select, target, table.sqlName(), table.columnList(), batchSize,
								soFar -> {
									target.commit();
									to.dialect().beginMover(target, tenantId);
									progress.batchDone("copy table=" + table.sqlName() + " rows=" + soFar);
									pause(throttle);
								});
						copied.put(table.sqlName(), rows);
						progress.batchDone("copy table=" + table.sqlName() + " rows=" + rows + " (table done)");
						continue;
					}
					long rows = 0;
					int columns = table.columns().size();
					// Multi-row INSERTs: one statement (and one execution of the target's row triggers' plan) per
					// chunk instead of per row, the largest round-trip saving on PostgreSQL.
					int perStatement = Math.max(1, Math.min(Math.min(batchSize, MAX_ROWS_PER_INSERT),
							MAX_PARAMETERS / columns));
					List<Object[]> chunk = new ArrayList<>(perStatement);
					try (PreparedStatement select = source.prepareStatement("SELECT " + table.columnList() + " FROM "
							+ table.sqlName() + " WHERE " + table.tenantColumn() + " = ?");
							PreparedStatement insert = target.prepareStatement(multiRowInsert(table, perStatement))) {
						select.setString(1, tenantId);
						select.setFetchSize(Math.min(Math.max(batchSize, perStatement), 5000));
						long sinceCommit = 0;
						try (ResultSet rs = select.executeQuery()) {
							while (rs.next()) {
								chunk.add(values(rs, columns));
								rows++;
								if (chunk.size() == perStatement) {
									bindRows(insert, chunk);
									insert.executeUpdate();
									sinceCommit += chunk.size();
									chunk.clear();
									if (sinceCommit >= batchSize) {
										target.commit();
										to.dialect().beginMover(target, tenantId);
										sinceCommit = 0;
										progress.batchDone("copy table=" + table.sqlName() + " rows=" + rows);
										pause(throttle);
									}
								}
							}
						}
						if (!chunk.isEmpty()) {
							try (PreparedStatement last = target.prepareStatement(multiRowInsert(table, chunk.size()))) {
								bindRows(last, chunk);
								last.executeUpdate();
							}
						}
						target.commit();
						to.dialect().beginMover(target, tenantId);
					}
					copied.put(table.sqlName(), rows);
					progress.batchDone("copy table=" + table.sqlName() + " rows=" + rows + " (table done)");
				}
				source.commit();
			}
			catch (SQLException | RuntimeException ex) {
				rollbackQuietly(source, ex);
				rollbackQuietly(target, ex);
				throw ex;
			}
			finally {
				to.dialect().end(target);
				target.setAutoCommit(true);
				source.setAutoCommit(true);
				source.setTransactionIsolation(isolation);
			}
		}
		return copied;
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
	 * <p>Target writes are committed every {@code batchSize} rows (deletes first, so that a unique value a deleted row
	 * freed can be taken by an upserted one); the log entries are deleted only after the last commit. Re-applying an
	 * entry is harmless (it copies the row's state), so a crash anywhere loses nothing. Entries committed during the
	 * round, also with smaller sequence numbers, stay in the log for the next round.
	 * @return the lag (entries in the log) after the round
	 * @throws SQLException on a database error
	 */
	public static long catchUpRound(Topology.Shard from, Topology.Shard to, String tenantId,
			List<TablePlan> tables, int batchSize, Duration throttle, Progress progress) throws SQLException {
		return catchUpRound(from, to, tenantId, tables, batchSize, throttle, progress, null, null);
	}

	/**
	 * Compares, after a catch-up round's apply, the source in the round's snapshot with the target, per table.
	 */
	@FunctionalInterface
	public interface SnapshotCheck {

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
	public static long catchUpRound(Topology.Shard from, Topology.Shard to, String tenantId,
			List<TablePlan> tables, int batchSize, Duration throttle, Progress progress, SnapshotCheck check,
			Map<TablePlan, Set<String>> applied) throws SQLException {
		List<Long> seqs = new ArrayList<>();
		try (Connection source = from.dataSource().getConnection()) {
			int isolation = source.getTransactionIsolation();
			from.dialect().beginSnapshotRead(source);
			try {
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
			}
			catch (SQLException | RuntimeException ex) {
				rollbackQuietly(source, ex);
				throw ex;
			}
			finally {
				source.setAutoCommit(true);
				source.setTransactionIsolation(isolation);
			}
		}
		if (!seqs.isEmpty()) {
			try (Connection c = from.dataSource().getConnection()) {
				c.setAutoCommit(false);
				try {
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
					c.commit();
				}
				catch (SQLException | RuntimeException ex) {
					rollbackQuietly(c, ex);
					throw ex;
				}
				finally {
					c.setAutoCommit(true);
				}
			}
		}
		return lag(from, tenantId);
	}

	/**
	 * Applies a round's keys to the target: first the deletes of the keys whose rows are gone in the snapshot
	 * (children first), then the upserts of the others (parents first), committing every chunk.
	 * <p>Deletes come first so that a unique value (other than the primary key) freed by a deleted row can be taken by
	 * a row inserted or updated in the same round: upserting first made the target raise a unique violation and the
	 * move fail. A chunk the target refuses with an integrity violation (SQLSTATE class 23) is rolled back and its rows
	 * retried one at a time after the other chunks, in passes, until a pass applies none: this covers a child moved in
	 * the round from a deleted parent to another (its parent's delete waits for the child's upsert), a new parent a
	 * deferred row's children need, and a unique value moved from one row to another by UPDATEs whichever order their
	 * log entries came in. What still fails, with the target's violation, is a cycle: unique values exchanged between
	 * rows within one round (A takes B's value and B takes A's) cannot be reached one row at a time without a
	 * temporary value, nor can a row take a value another tenant's row holds on the target. Re-applying is harmless,
	 * so the committed chunks of a failed round are simply applied again by the next attempt.
	 */
	private static void apply(Connection source, Topology.Shard to, String tenantId, List<TablePlan> tables,
			Map<TablePlan, LinkedHashSet<String>> keys, int batchSize, Duration throttle, Progress progress)
			throws SQLException {
		int chunkSize = Math.min(batchSize, 500);
		Map<TablePlan, List<String>> gone = new LinkedHashMap<>();
		for (TablePlan table : tables) {
			LinkedHashSet<String> tableKeys = keys.get(table);
			if (tableKeys == null) {
				continue;
			}
			for (List<String> chunk : chunks(new ArrayList<>(tableKeys), chunkSize)) {
				Map<String, Object[]> found = read(source, table, chunk, tenantId);
				for (String key : chunk) {
					if (!found.containsKey(key)) {
						gone.computeIfAbsent(table, t -> new ArrayList<>()).add(key);
					}
				}
			}
		}
		try (Connection target = to.dataSource().getConnection()) {
			TargetWriter writer = new TargetWriter(target, to, tenantId, throttle, progress);
			Map<TablePlan, List<String>> deferredDeletes = new LinkedHashMap<>();
			Map<TablePlan, List<Object[]>> deferredUpserts = new LinkedHashMap<>();
			try {
				target.setAutoCommit(false);
				to.dialect().beginMover(target, tenantId);
				for (TablePlan table : reversed(tables)) {
					for (List<String> chunk : chunks(gone.getOrDefault(table, List.of()), chunkSize)) {
						if (!writer.attempt(chunk.size(), () -> delete(target, table, chunk, tenantId))) {
							deferredDeletes.computeIfAbsent(table, t -> new ArrayList<>()).addAll(chunk);
						}
					}
				}
				for (TablePlan table : tables) {
					LinkedHashSet<String> tableKeys = keys.get(table);
					if (tableKeys == null) {
						continue;
					}
					for (List<String> chunk : chunks(new ArrayList<>(tableKeys), chunkSize)) {
						Map<String, Object[]> found = read(source, table, chunk, tenantId);
						List<Object[]> present = chunk.stream().map(found::get).filter(row -> row != null).toList();
						if (!writer.attempt(present.size(), () -> upsert(target, to, table, present))) {
							deferredUpserts.computeIfAbsent(table, t -> new ArrayList<>()).addAll(present);
						}
					}
				}
				while (!deferredDeletes.isEmpty() || !deferredUpserts.isEmpty()) {
					int applied = 0;
					for (TablePlan table : tables) {
						applied += retryOneByOne(deferredUpserts, table,
								row -> writer.attempt(1,
										() -> upsert(target, to, table, Collections.singletonList(row))));
					}
					for (TablePlan table : reversed(tables)) {
						applied += retryOneByOne(deferredDeletes, table,
								key -> writer.attempt(1, () -> delete(target, table, List.of(key), tenantId)));
					}
					if (applied == 0) {
						throw writer.lastViolation;
					}
				}
				target.commit();
			}
			catch (SQLException | RuntimeException ex) {
				rollbackQuietly(target, ex);
				throw ex;
			}
			finally {
				to.dialect().end(target);
				target.setAutoCommit(true);
			}
		}
	}

	/** One write to the target, committed on success. */
	private interface TargetWork {

		void run() throws SQLException;

	}

	/** An attempt of one deferred row. */
	private interface RowAttempt<T> {

		boolean apply(T row) throws SQLException;

	}

	/** Retries a table's deferred rows one at a time. @return how many were applied (and removed) */
	private static <T> int retryOneByOne(Map<TablePlan, List<T>> deferred, TablePlan table, RowAttempt<T> attempt)
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
	private static final class TargetWriter {

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
	private static boolean isIntegrityViolation(SQLException ex) {
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

	private static void delete(Connection target, TablePlan table, List<String> keys, String tenantId)
			throws SQLException {
		try (PreparedStatement ps = target
			.prepareStatement("DELETE FROM " + table.sqlName() + " WHERE " + table.keyPredicate())) {
			for (String key : keys) {
				bindKey(ps, table, key, tenantId, 1);
				ps.addBatch();
			}
			ps.executeBatch();
		}
	}

	/**
	 * Writes rows to the target with the dialect's upsert ({@link io.github.shardtenancy.spi.FenceDialect#upsert}),
	 * else portably with {@link #upsert(Connection, TablePlan, List)}.
	 */
	private static void upsert(Connection target, Topology.Shard to, TablePlan table, List<Object[]> rows)
			throws SQLException {
		if (rows.isEmpty()) {
			return;
		}
		List<String> keyColumns = table.keys().stream().map(TablePlan.KeyColumn::name).toList();
		if (!to.dialect().upsert(target, table.sqlName(), table.columns(), keyColumns, rows)) {
			upsert(target, table, rows);
		}
	}

	/**
	 * Reads the rows of some logged keys on the source: one {@code IN} query for a single-column key, one query per
	 * key otherwise.
	 * @return the rows found, by logged key; a key without a row is absent
	 */
	private static Map<String, Object[]> read(Connection source, TablePlan table, List<String> keys, String tenantId)
			throws SQLException {
		Map<String, Object[]> found = new LinkedHashMap<>();
		int columns = table.columns().size();
		if (table.keys().size() == 1) {
			TablePlan.KeyColumn key = table.keys().get(0);
			int keyIndex = indexOf(table.columns(), key.name());
			Map<Object, String> byValue = new LinkedHashMap<>();
			for (String logged : keys) {
				byValue.put(key.parse(logged), logged);
			}
			String marks = String.join(", ", keys.stream().map(k -> "?").toList());
			try (PreparedStatement ps = source.prepareStatement("SELECT " + table.columnList() + " FROM "
					+ table.sqlName() + " WHERE " + table.tenantColumn() + " = ? AND " + key.name() + " IN (" + marks
					+ ")")) {
				ps.setString(1, tenantId);
				int i = 2;
				for (Object value : byValue.keySet()) {
					ps.setObject(i++, value);
				}
				try (ResultSet rs = ps.executeQuery()) {
					while (rs.next()) {
						Object[] row = values(rs, columns);
						String logged = byValue.get(key.parse(String.valueOf(row[keyIndex])));
						if (logged != null) {
							found.put(logged, row);
						}
					}
				}
			}
			return found;
		}
		try (PreparedStatement ps = source.prepareStatement(
				"SELECT " + table.columnList() + " FROM " + table.sqlName() + " WHERE " + table.keyPredicate())) {
			for (String logged : keys) {
				bindKey(ps, table, logged, tenantId, 1);
				try (ResultSet rs = ps.executeQuery()) {
					if (rs.next()) {
						found.put(logged, values(rs, columns));
					}
				}
			}
		}
		return found;
	}

	/**
	 * Writes rows to the target: a batch of UPDATEs by key, then a batch of INSERTs for the rows no UPDATE found
	 * (never DELETE + INSERT, which would cascade to the row's children).
	 */
	private static void upsert(Connection target, TablePlan table, List<Object[]> rows) throws SQLException {
		if (rows.isEmpty()) {
			return;
		}
		List<String> valueColumns = table.valueColumns();
		int[] keyIndexes = table.keys().stream().mapToInt(k -> indexOf(table.columns(), k.name())).toArray();
		int tenantIndex = indexOf(table.columns(), table.tenantColumn());
		List<Object[]> missing = new ArrayList<>();
		String where = table.keyPredicate();
		String sql = valueColumns.isEmpty()
				? "UPDATE " + table.sqlName() + " SET " + table.tenantColumn() + " = " + table.tenantColumn() + " WHERE "
						+ where
				: "UPDATE " + table.sqlName() + " SET "
						+ String.join(", ", valueColumns.stream().map(c -> c + " = ?").toList()) + " WHERE " + where;
		try (PreparedStatement ps = target.prepareStatement(sql)) {
			for (Object[] row : rows) {
				int i = 1;
				for (String column : valueColumns) {
					ps.setObject(i++, row[indexOf(table.columns(), column)]);
				}
				for (int keyIndex : keyIndexes) {
					ps.setObject(i++, row[keyIndex]);
				}
				ps.setObject(i, row[tenantIndex]);
				ps.addBatch();
			}
			int[] counts = ps.executeBatch();
			for (int r = 0; r < rows.size(); r++) {
				if (counts[r] == 0) {
					missing.add(rows.get(r));
				}
			}
		}
		if (!missing.isEmpty()) {
			String marks = String.join(", ", table.columns().stream().map(c -> "?").toList());
			try (PreparedStatement ps = target.prepareStatement(
					"INSERT INTO " + table.sqlName() + " (" + table.columnList() + ") VALUES (" + marks + ")")) {
				for (Object[] row : missing) {
					for (int i = 0; i < row.length; i++) {
						ps.setObject(i + 1, row[i]);
					}
					ps.addBatch();
				}
				ps.executeBatch();
			}
		}
	}

	private static long commit(Connection target, Topology.Shard to, String tenantId, long written, int rows,
			Duration throttle, Progress progress) throws SQLException {
		target.commit();
		to.dialect().beginMover(target, tenantId);
		progress.batchDone("catch-up rows=" + (written + rows));
		pause(throttle);
		return written + rows;
	}

	private static <T> List<List<T>> chunks(List<T> items, int size) {
		List<List<T>> chunks = new ArrayList<>();
		for (int i = 0; i < items.size(); i += size) {
			chunks.add(items.subList(i, Math.min(items.size(), i + size)));
		}
		return chunks;
	}

	private static int indexOf(List<String> columns, String column) {
		for (int i = 0; i < columns.size(); i++) {
			if (columns.get(i).equalsIgnoreCase(column)) {
				return i;
			}
		}
		throw new IllegalStateException("No column " + column + " in " + columns);
	}


	/**
	 * Counts a tenant's rows in one table and sums a hash of each row's values: equal on both sides means the same
	 * multiset of rows, whatever order the databases return them in.
	 * @return {count, checksum}
	 * @throws SQLException on a database error
	 */
	public static long[] countAndChecksum(Topology.Shard shard, TablePlan table, String tenantId)
			throws SQLException {
		return countAndChecksum(shard, table, tenantId, false);
	}

	/**
	 * Counts a tenant's rows in one table and sums a hash of each row's values; with {@code inDatabase} the database
	 * computes both ({@link io.github.shardtenancy.spi.FenceDialect#countAndChecksum}), sending one row instead of the
	 * table's, otherwise as {@link #countAndChecksum(Topology.Shard, TablePlan, String)}. Both sides of a
	 * comparison must be computed the same way: see {@link #inDatabaseChecksum}.
	 * @param inDatabase whether to compute in the database; only honoured if the shard's dialect has an in-database
	 * checksum
	 * @return {count, checksum}
	 * @throws SQLException on a database error
	 */
	public static long[] countAndChecksum(Topology.Shard shard, TablePlan table, String tenantId,
			boolean inDatabase) throws SQLException {
		try (Connection c = shard.dataSource().getConnection()) {
			boolean byDatabase = inDatabase && shard.dialect().checksumAlgorithm() != null;
			return acrossTenants(shard, c,
					() -> countAndChecksum(c, byDatabase ? shard.dialect() : null, table, tenantId));
		}
	}

	/**
	 * As {@link #countAndChecksum(Topology.Shard, TablePlan, String, boolean)}, on a connection (for example one
	 * in a snapshot), in the database if a dialect is given (the caller checked {@link #inDatabaseChecksum}).
	 * @param inDatabase the dialect of the connection's shard, to compute in the database, or {@code null}
	 * @return {count, checksum}
	 * @throws SQLException on a database error
	 */
	public static long[] countAndChecksum(Connection c, FenceDialect inDatabase, TablePlan table, String tenantId)
			throws SQLException {
		if (inDatabase != null) {
			return inDatabase.countAndChecksum(c, table.sqlName(), table.columns(), table.tenantColumn(), tenantId);
		}
		try (PreparedStatement ps = c.prepareStatement("SELECT " + table.columnList() + " FROM " + table.sqlName()
						+ " WHERE " + table.tenantColumn() + " = ?")) {
			ps.setString(1, tenantId);
			long count = 0;
			long checksum = 0;
			try (ResultSet rs = ps.executeQuery()) {
				int columns = table.columns().size();
				while (rs.next()) {
					count++;
					StringBuilder row = new StringBuilder();
					for (int i = 1; i <= columns; i++) {
						row.append(rs.getString(i)).append('\u001f');
					}
					checksum += mix(row.toString().hashCode());
				}
			}
			return new long[] { count, checksum };
		}
	}

	/**
	 * @return the tenant's rows in a table of a shard
	 * @throws SQLException on a database error
	 */
	public static long count(Topology.Shard shard, TablePlan table, String tenantId) throws SQLException {
		try (Connection c = shard.dataSource().getConnection()) {
			return acrossTenants(shard, c, () -> {
				try (PreparedStatement ps = c.prepareStatement(
						"SELECT COUNT(*) FROM " + table.sqlName() + " WHERE " + table.tenantColumn() + " = ?")) {
					ps.setString(1, tenantId);
					try (ResultSet rs = ps.executeQuery()) {
						rs.next();
						return rs.getLong(1);
					}
				}
			});
		}
	}

	/**
	 * Runs read-only work that reads a tenant's rows without being bound to it, in a transaction under the
	 * maintenance mark ({@link io.github.shardtenancy.spi.FenceDialect#beginMaintenance}), which row-level security
	 * lets read every row; rolls the transaction back and restores auto-commit afterwards.
	 * @param shard the shard of the connection
	 * @param c a connection of the shard, in auto-commit mode
	 * @param work the reads
	 * @return what the work returned
	 * @throws SQLException on a database error
	 */
	public static <T> T acrossTenants(Topology.Shard shard, Connection c, SqlWork<T> work) throws SQLException {
		shard.dialect().beginMaintenance(c);
		try {
			return work.run();
		}
		finally {
			try {
				c.rollback();
			}
			finally {
				c.setAutoCommit(true);
			}
		}
	}

	/**
	 * Compares the rows of some keys on the source and the target, value by value (as text).
	 * @return a description of the first difference, or {@code null} if every key has equal rows on both (or none)
	 * @throws SQLException on a database error
	 */
	public static String compareRows(Topology.Shard from, Topology.Shard to, TablePlan table,
			Set<String> keys, String tenantId) throws SQLException {
		try (Connection source = from.dataSource().getConnection();
				Connection target = to.dataSource().getConnection()) {
			return acrossTenants(from, source, () -> acrossTenants(to, target, () -> {
				for (List<String> chunk : chunks(new ArrayList<>(keys), 500)) {
					Map<String, Object[]> onSource = read(source, table, chunk, tenantId);
					Map<String, Object[]> onTarget = read(target, table, chunk, tenantId);
					for (String key : chunk) {
						String a = text(onSource.get(key));
						String b = text(onTarget.get(key));
						if (!java.util.Objects.equals(a, b)) {
							return "key " + key.replace(KEY_SEPARATOR, ",") + ": source " + a + ", target " + b;
						}
					}
				}
				return null;
			}));
		}
	}

	private static final String KEY_SEPARATOR = "\u001f";

	private static String text(Object[] row) {
		if (row == null) {
			return null;
		}
		StringBuilder out = new StringBuilder("(");
		for (Object value : row) {
			out.append(out.length() > 1 ? ", " : "").append(value);
		}
		return out.append(')').toString();
	}

	/**
	 * @return whether the databases of both shards can compute a move's checksums themselves, the same way: their
	 * dialects name the same in-database checksum ({@link FenceDialect#checksumAlgorithm()})
	 */
	public static boolean inDatabaseChecksum(Topology.Shard from, Topology.Shard to) {
		String algorithm = from.dialect().checksumAlgorithm();
		return algorithm != null && algorithm.equals(to.dialect().checksumAlgorithm());
	}

	private static long mix(long h) {
		h ^= (h >>> 33);
		h *= 0xff51afd7ed558ccdL;
		h ^= (h >>> 33);
		return h;
	}

	private static void bindKey(PreparedStatement ps, TablePlan table, String key, String tenantId, int first)
			throws SQLException {
		Object[] values = table.parseKey(key);
		int i = first;
		for (Object value : values) {
			ps.setObject(i++, value);
		}
		ps.setString(i, tenantId);
	}

	private static Object[] values(ResultSet rs, int columns) throws SQLException {
		Object[] values = new Object[columns];
		for (int i = 0; i < columns; i++) {
			values[i] = rs.getObject(i + 1);
		}
		return values;
	}

	private static TablePlan find(List<TablePlan> tables, String loggedName) {
		String bare = loggedName.contains(".") ? loggedName.substring(loggedName.lastIndexOf('.') + 1) : loggedName;
		for (TablePlan table : tables) {
			if (table.name().equalsIgnoreCase(bare)) {
				return table;
			}
		}
		return null;
	}

	private static List<TablePlan> reversed(List<TablePlan> tables) {
		List<TablePlan> copy = new ArrayList<>(tables);
		java.util.Collections.reverse(copy);
		return copy;
	}

	private static void rollbackQuietly(Connection c, Exception cause) {
		try {
			if (!c.getAutoCommit()) {
				c.rollback();
			}
		}
		catch (SQLException ex) {
			cause.addSuppressed(ex);
		}
	}

	private static void pause(Duration throttle) {
		if (!throttle.isZero()) {
			try {
				Thread.sleep(throttle.toMillis());
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
				throw new IllegalStateException("Interrupted while throttling", ex);
			}
		}
	}

}
