package io.github.shardtenancy.h2;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;

import io.github.shardtenancy.spi.DialectSql;
import io.github.shardtenancy.spi.FenceDialect;
import org.h2.command.CommandInterface;
import org.h2.command.CommandContainer;
import org.h2.engine.SessionLocal;
import org.h2.message.DbException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The H2 fence: the shard changelog installs Java functions ({@code SHARD_FENCE_BEGIN}, {@code SHARD_FENCE_END},
 * {@code SHARD_FENCE_MOVER}) of {@link H2Fence} and the trigger classes {@link H2FenceTrigger} and
 * {@link H2CaptureTrigger} of this module; the statements sent from here are in the {@code .sql} files next to it.
 * H2's {@code @variables} are per session and survive a rollback, so {@link #end} clears them before the connection
 * returns to its pool.
 *
 * <p>On an embedded H2 (the database runs in this JVM, as its triggers do) the hot path sends no statement:
 * {@link #begin} takes the tenant's fence lock shared, judges the route on the latest committed fence row read from
 * H2's engine and binds the variables in process; the write checks compare the written rows with the variables and
 * read the fence and capture state from H2's engine; {@link #end} ends the hold and clears the variables in process
 * ({@link H2TenantLocks}). Only the first begin of a tenant in this JVM sends one statement, to find the fence row.
 * Elsewhere (an H2 server in another JVM, or H2's engine classes not readable) {@link #begin} sends one statement,
 * straight from here rather than through a {@code CALL} of the Java functions (which would add a statement of its
 * own inside the database): it reads the tenant's fence row and binds the three variables in one {@code SELECT}, and
 * accepts the route by the rule of {@code SHARD_FENCE_BEGIN} (state OWNED or FROZEN, version at or above the
 * minimum); the write check locks the fence row {@code FOR UPDATE} with a statement, and {@link #end} sends one. A
 * route refused on that path takes the slow path: the variables are cleared and {@code SHARD_FENCE_BEGIN} itself is
 * called, which raises the rejection with the fence's message (or accepts and binds, if the fence changed in
 * between). Keeping the number of distinct statements small also keeps them in H2's per-session query cache (8
 * statements by default).
 *
 * <p>{@link #installWriteCheck} installs the fence trigger class twice on a tenant table: per row on INSERT, UPDATE
 * and DELETE, and per statement on UPDATE and DELETE, so that an UPDATE or DELETE matching no row (the rows cleaned
 * away after a move) is rejected as well instead of committing as a silent no-op. INSERT-only work never fires the
 * statement trigger. It also makes the tenant column's default the bound tenant ({@code NULLIF(@SHARD_TENANT, '')}),
 * so that a plain JDBC INSERT that omits the column writes the transaction's tenant. H2 fills defaults and checks NOT
 * NULL before BEFORE triggers fire ({@code Table.convertInsertRow}, then {@code Table.fireBeforeRow}, in
 * {@code org.h2.command.dml.Insert}), so a trigger could not fill the column; the row trigger then checks the filled
 * row as any other.
 */
public final class H2FenceDialect implements FenceDialect {

	private static final Logger log = LoggerFactory.getLogger(H2FenceDialect.class);

	/** Reads the fence row (NULLs when there is none) and binds tenant, version and no role, in one statement. */
	private static final String BIND = DialectSql.load(H2FenceDialect.class, "bind");

	private static final String CLEAR = DialectSql.load(H2FenceDialect.class, "clear");

	/** Unbinds the route only, keeping a read-only mark set for the transaction before the begin. */
	private static final String UNBIND = DialectSql.load(H2FenceDialect.class, "unbind");

	/** Marks the session's transaction read-only for the fence trigger (see {@link #beginReadOnly}). */
	private static final String READ_ONLY = DialectSql.load(H2FenceDialect.class, "read-only");

	private static final String ADMIN = DialectSql.load(H2FenceDialect.class, "admin");

	/** Finds the {@code _ROWID_} of a tenant's fence row. */
	private static final String FENCE_ROW = DialectSql.load(H2FenceDialect.class, "fence-row");

	private static final String BEGIN_CHECKED = DialectSql.load(H2FenceDialect.class, "begin-checked");

	private static final String MOVER = DialectSql.load(H2FenceDialect.class, "mover");

	private static final String LOCK = DialectSql.load(H2FenceDialect.class, "lock");

	private static final String REGISTER_TABLE = DialectSql.load(H2FenceDialect.class, "register-table");

	private static final String ROW_TRIGGER = DialectSql.load(H2FenceDialect.class, "row-trigger");

	private static final String STATEMENT_TRIGGER = DialectSql.load(H2FenceDialect.class, "statement-trigger");

	private static final String TRIGGER_CLASS = DialectSql.load(H2FenceDialect.class, "trigger-class");

	private static final String DROP_TRIGGER = DialectSql.load(H2FenceDialect.class, "drop-trigger");

	private static final String TABLE_TRIGGERS = DialectSql.load(H2FenceDialect.class, "table-triggers");

	private static final String SNAPSHOT_READ = DialectSql.load(H2FenceDialect.class, "snapshot-read");

	private static final String COLUMN_DEFAULT = DialectSql.load(H2FenceDialect.class, "column-default");

	private static final String TENANT_DEFAULT = DialectSql.load(H2FenceDialect.class, "tenant-default");

	@Override
	public boolean supports(String databaseProductName) {
		return "H2".equalsIgnoreCase(databaseProductName);
	}

	/**
	 * Reads the tenant's fence row and binds the variables in one statement, then, on an embedded H2, takes the
	 * tenant's fence lock shared ({@link H2TenantLocks}): until the transaction ends if auto-commit is off, else until
	 * {@link #end}. The route is judged on the latest committed fence row (not the transaction's snapshot, which at
	 * REPEATABLE READ or SERIALIZABLE may be older than a freeze); it is rejected with FROZEN if a freeze waits for
	 * the lock or holds it. A rejected begin unbinds the variables and holds no lock.
	 */
	@Override
	public void begin(Connection connection, String tenantId, long directoryVersion) throws SQLException {
		SessionLocal session = H2FenceSession.sessionOf(connection);
		if (session != null && beginInProcess(connection, session, tenantId, directoryVersion)) {
			return;
		}
		String state;
		long minVersion;
		try (PreparedStatement ps = connection.prepareStatement(BIND)) {
			ps.setString(1, tenantId);
			ps.setLong(2, directoryVersion);
			ps.setString(3, tenantId);
			try (ResultSet rs = ps.executeQuery()) {
				rs.next();
				state = rs.getString(1);
				minVersion = rs.getLong(2);
			}
		}
		if (H2Fence.refusal(state, minVersion, directoryVersion) == null) {
			return;
		}
		// Refused: unbind, and let the fence function raise the rejection in the fence's own words.
		unbind(connection);
		try (PreparedStatement ps = connection.prepareStatement(BEGIN_CHECKED)) {
			ps.setString(1, tenantId);
			ps.setLong(2, directoryVersion);
			ps.execute();
		}
	}

	/**
	 * The begin on an embedded H2: takes the tenant's fence lock shared, judges the route on the latest committed
	 * fence row and binds the variables, without a statement once the fence row's place is known.
	 * @return {@code false} if H2's engine classes cannot be read (nothing held, nothing bound): take the SQL path
	 */
	private static boolean beginInProcess(Connection connection, SessionLocal session, String tenantId,
			long directoryVersion) throws SQLException {
		// A begin without an end before it (the same connection bound again): its hold ends now.
		H2FenceSession.Variables previous = H2FenceSession.variables(session);
		if (previous == null) {
			return false;
		}
		H2TenantLocks.releaseSession(session, previous.tenant());
		H2TenantLocks.Holder holder = H2TenantLocks.enterShared(session, tenantId, directoryVersion,
				!session.getAutoCommit());
		H2TenantLocks.TenantLock lock = (holder != null) ? holder.lock : H2TenantLocks.lock(session, tenantId);
		H2Fence.Fence fence = H2TenantLocks.committedFence(session, lock,
				(lock.fenceRowKey >= 0) ? lock.fenceRowKey : fenceRowKey(connection, tenantId));
		if (fence == null) {
			if (holder != null) {
				H2TenantLocks.release(holder);
			}
			return false;
		}
		String refusal = (holder != null) ? H2Fence.refusal(fence.state(), fence.minVersion(), directoryVersion)
				: "FROZEN";
		if (refusal != null) {
			if (holder != null) {
				H2TenantLocks.release(holder);
			}
			H2FenceSession.unbind(session);
			throw H2Fence.reject(connection, tenantId, refusal, directoryVersion, fence.minVersion());
		}
		H2FenceSession.bind(session, holder.lock.tenantValue, holder.lock.versionValue(directoryVersion));
		return true;
	}

	/** @return the {@code _ROWID_} of the tenant's fence row in the transaction's view, or -1 */
	private static long fenceRowKey(Connection connection, String tenantId) throws SQLException {
		try (PreparedStatement ps = connection.prepareStatement(FENCE_ROW)) {
			ps.setString(1, tenantId);
			try (ResultSet rs = ps.executeQuery()) {
				return rs.next() ? rs.getLong(1) : -1;
			}
		}
	}

	private static void unbind(Connection connection) throws SQLException {
		try (PreparedStatement ps = connection.prepareStatement(UNBIND); ResultSet rs = ps.executeQuery()) {
			// executed for its side effect
		}
	}

	/**
	 * Selects the tenant's fence row {@code FOR UPDATE} (which waits for writers on the fence's SQL path), then takes
	 * the tenant's fence lock exclusive for the connection's transaction, in this JVM on an embedded H2, through
	 * {@code SHARD_FENCE_LOCK} in the JVM that runs the database over TCP: it waits until every other session's
	 * transaction of the tenant has ended, up to the session's lock timeout, while new ones are rejected with FROZEN
	 * ({@link H2TenantLocks}).
	 * @throws SQLException on a database error, or SQLSTATE {@code HYT00} when the lock timeout passes
	 */
	@Override
	public void lockTenant(Connection connection, String tenantId) throws SQLException {
		FenceDialect.super.lockTenant(connection, tenantId);
		SessionLocal session = H2FenceSession.sessionOf(connection);
		if (session != null) {
			H2TenantLocks.lockExclusive(session, tenantId);
			return;
		}
		// A database reached over TCP: its writers hold the lock in the JVM that runs it (the row trigger takes it
		// there), so it is taken there too.
		try (PreparedStatement ps = connection.prepareStatement(LOCK)) {
			ps.setString(1, tenantId);
			ps.execute();
		}
	}

	/**
	 * H2 has no read-only transaction: its {@link Connection#setReadOnly(boolean)} is only a hint and does not refuse
	 * writes. The flag is set anyway (the pool resets it), and the session variable {@code @SHARD_READ_ONLY} is set
	 * for the fence's write check, which then refuses every write to a tenant table with SQLSTATE {@code 25006}.
	 * Writes to tables that are not tenant tables (which have no fence trigger) are not refused. {@link #end} clears
	 * the variable. In process on an embedded H2, else one statement.
	 */
	@Override
	public void beginReadOnly(Connection connection) throws SQLException {
		connection.setReadOnly(true);
		SessionLocal session = H2FenceSession.sessionOf(connection);
		if (session != null && H2FenceSession.markReadOnly(session)) {
			return;
		}
		try (PreparedStatement ps = connection.prepareStatement(READ_ONLY); ResultSet rs = ps.executeQuery()) {
			// executed for its side effect
		}
	}

	/**
	 * An administrator (H2's default user {@code sa} is one): it may run {@code RUNSCRIPT} and {@code SCRIPT}, call
	 * H2's file functions and drop the fence's triggers, none of which the fence sees.
	 */
	@Override
	public List<String> excessPrivileges(Connection connection, List<String> tenantTables) throws SQLException {
		try (PreparedStatement ps = connection.prepareStatement(ADMIN); ResultSet rs = ps.executeQuery()) {
			if (rs.next() && rs.getBoolean(1)) {
				return List.of("is an H2 administrator: it may run RUNSCRIPT and SCRIPT, call H2's file functions and "
						+ "drop the fence's triggers (connect the shard as a user created without ADMIN, granted the "
						+ "tables)");
			}
		}
		return List.of();
	}

	/**
	 * The statements H2's own parser finds: a text of several becomes an {@code org.h2.command.CommandList}, which
	 * H2 runs to its end, whatever the connection's read-only flag. Parsed in the session of an embedded H2 (nothing
	 * runs); {@code -1} over TCP, where the parser runs in the server.
	 */
	@Override
	public int statementCount(Connection connection, String sql) throws SQLException {
		SessionLocal session = H2FenceSession.sessionOf(connection);
		if (session == null) {
			return -1;
		}
		try (CommandInterface command = session.prepareLocal(sql)) {
			// One statement is a CommandContainer; several are a CommandList (not public), counted as two.
			return command instanceof CommandContainer ? 1 : 2;
		}
		catch (DbException ex) {
			// Not even the first statement parses: the driver fails it the same way before anything runs.
			return 1;
		}
		catch (LinkageError ex) {
			H2FenceSession.unusable(ex);
			return -1;
		}
	}

	/**
	 * Ends the session's hold on its tenant's fence lock and clears the variables: in process on an embedded H2, else
	 * with one statement.
	 */
	@Override
	public void end(Connection connection) throws SQLException {
		SessionLocal session = H2FenceSession.sessionOf(connection);
		if (session != null) {
			H2FenceSession.Variables vars = H2FenceSession.variables(session);
			H2TenantLocks.releaseSession(session, vars != null ? vars.tenant() : null);
			if (H2FenceSession.clear(session)) {
				return;
			}
		}
		try (PreparedStatement ps = connection.prepareStatement(CLEAR); ResultSet rs = ps.executeQuery()) {
			// executed for its side effect
		}
	}

	@Override
	public void beginMover(Connection connection, String tenantId) throws SQLException {
		try (PreparedStatement ps = connection.prepareStatement(MOVER)) {
			ps.setString(1, tenantId);
			ps.execute();
		}
	}

	@Override
	public void installWriteCheck(Connection connection, String table, String tenantColumn) throws SQLException {
		installTrigger(connection, table, tenantColumn, "shard_fence_table", "SHARD_FENCE_", "BEFORE",
				H2FenceTrigger.class);
		// The same class as a statement trigger on UPDATE and DELETE: an UPDATE or DELETE that matches no row (the
		// tenant's rows cleaned away after a move) is rejected too, not committed as a silent no-op. INSERT-only
		// transactions never fire it.
		String tableName = DialectSql.identifier(table).toUpperCase(Locale.ROOT);
		String trigger = "SHARD_STATEMENT_FENCE_" + tableName.replace('.', '_');
		dropIfOtherClass(connection, trigger, H2FenceTrigger.class);
		try (PreparedStatement ps = connection.prepareStatement(DialectSql.fill(STATEMENT_TRIGGER,
				Map.of("trigger", trigger, "table", tableName, "class", H2FenceTrigger.class.getName())))) {
			ps.execute();
		}
		installTenantDefault(connection, tableName, DialectSql.identifier(tenantColumn).toUpperCase(Locale.ROOT));
	}

	/**
	 * Makes the tenant column's default the bound tenant, unless it has one already: the same (left alone), one of
	 * the application's own (kept, with a warning: the write check refuses its value unless it is the bound tenant),
	 * or H2 fills the column itself.
	 */
	private static void installTenantDefault(Connection connection, String table, String column) throws SQLException {
		int dot = table.indexOf('.');
		String current;
		try (PreparedStatement ps = connection.prepareStatement(COLUMN_DEFAULT)) {
			ps.setString(1, dot < 0 ? null : table.substring(0, dot));
			ps.setString(2, table.substring(dot + 1));
			ps.setString(3, column);
			try (ResultSet rs = ps.executeQuery()) {
				if (!rs.next()) {
					throw new SQLException("Table " + table + " has no column " + column);
				}
				current = rs.getString(1);
				if (rs.getBoolean(2) || (current != null && current.contains(H2FenceSession.TENANT))) {
					return;
				}
			}
		}
		if (current != null) {
			log.warn("The tenant column {}.{} has a default of its own ({}), kept; an INSERT that omits the column "
					+ "gets that value, which the fence refuses unless it is the bound tenant; drop the default "
					+ "(ALTER TABLE {} ALTER COLUMN {} DROP DEFAULT) to let the shard fill the column with the bound "
					+ "tenant", table, column, current, table, column);
			return;
		}
		try (PreparedStatement ps = connection
			.prepareStatement(DialectSql.fill(TENANT_DEFAULT, Map.of("table", table, "column", column)))) {
			ps.execute();
		}
	}

	/**
	 * Drops a trigger that runs another class than the one it should (a database whose triggers were created when the
	 * classes lived in {@code io.github.shardtenancy.liquibase.h2}), so that it is created again with this module's.
	 */
	private static void dropIfOtherClass(Connection connection, String trigger, Class<?> triggerClass)
			throws SQLException {
		boolean other = false;
		try (PreparedStatement ps = connection.prepareStatement(TRIGGER_CLASS)) {
			ps.setString(1, trigger);
			try (ResultSet rs = ps.executeQuery()) {
				while (rs.next()) {
					other |= !triggerClass.getName().equals(rs.getString(1));
				}
			}
		}
		if (other) {
			try (PreparedStatement ps = connection
				.prepareStatement(DialectSql.fill(DROP_TRIGGER, Map.of("trigger", trigger)))) {
				ps.execute();
			}
		}
	}

	/**
	 * Registers the table in {@code shard_capture_table} and creates an {@code AFTER} row trigger running
	 * {@link H2CaptureTrigger}.
	 */
	@Override
	public void installChangeCapture(Connection connection, String table, String tenantColumn) throws SQLException {
		installTrigger(connection, table, tenantColumn, "shard_capture_table", "SHARD_CAPTURE_", "AFTER",
				H2CaptureTrigger.class);
	}

	/**
	 * Registers a tenant table and its tenant column in a registry table (which the trigger reads when H2 loads it),
	 * then creates, if missing (or running another class), a row trigger on every write to the table.
	 */
	private static void installTrigger(Connection connection, String table, String tenantColumn, String registry,
			String triggerPrefix, String timing, Class<?> triggerClass) throws SQLException {
		String tableName = DialectSql.identifier(table).toUpperCase(Locale.ROOT);
		String column = DialectSql.identifier(tenantColumn).toUpperCase(Locale.ROOT);
		try (PreparedStatement ps = connection
			.prepareStatement(DialectSql.fill(REGISTER_TABLE, Map.of("registry", registry)))) {
			ps.setString(1, tableName);
			ps.setString(2, column);
			ps.executeUpdate();
		}
		String trigger = triggerPrefix + tableName.replace('.', '_');
		dropIfOtherClass(connection, trigger, triggerClass);
		try (PreparedStatement ps = connection.prepareStatement(DialectSql.fill(ROW_TRIGGER, Map.of("trigger", trigger,
				"timing", timing, "table", tableName, "class", triggerClass.getName())))) {
			ps.execute();
		}
	}

	/**
	 * Every trigger on a tenant table that does not run one of the library's classes ({@link H2FenceTrigger},
	 * {@link H2CaptureTrigger}, or a class of the library's older packages): H2 has no replica mode, so the mover's
	 * copy, catch-up, clean and abort would fire it for every row they write, and an audit log or an outbox would see
	 * every moved row created again on the target and deleted from the source.
	 */
	@Override
	public List<String> moveTriggerRefusals(Connection connection, List<String> tables) throws SQLException {
		List<String> refusals = new ArrayList<>();
		for (String table : tables) {
			String identifier = DialectSql.identifier(table).toUpperCase(Locale.ROOT);
			int dot = identifier.indexOf('.');
			String schema = dot < 0 ? null : identifier.substring(0, dot);
			String name = identifier.substring(dot + 1);
			try (PreparedStatement ps = connection.prepareStatement(TABLE_TRIGGERS)) {
				ps.setString(1, schema);
				ps.setString(2, schema);
				ps.setString(3, name);
				try (ResultSet rs = ps.executeQuery()) {
					while (rs.next()) {
						String javaClass = rs.getString(2);
						if (isLibraryTrigger(javaClass)) {
							continue;
						}
						refusals.add("table " + table + ", trigger " + rs.getString(1) + " ("
								+ (javaClass != null ? "class " + javaClass : "defined by source code")
								+ "): H2 has no replica mode, so it would fire for every row the move copies and "
								+ "catches up on the target and deletes from the source (an audit log or an outbox "
								+ "would see every moved row created again and deleted); drop the trigger before "
								+ "moving tenants of this shard, or run the shards on PostgreSQL");
					}
				}
			}
		}
		return refusals;
	}

	/** @return whether a trigger class is the fence's or the change capture's, of this module or an older package */
	private static boolean isLibraryTrigger(String javaClass) {
		return H2FenceTrigger.class.getName().equals(javaClass) || H2CaptureTrigger.class.getName().equals(javaClass)
				|| (javaClass != null && javaClass.startsWith("io.github.shardtenancy.liquibase.h2.")
						&& javaClass.indexOf('.', "io.github.shardtenancy.liquibase.h2.".length()) < 0);
	}

	/** H2's {@code SNAPSHOT} isolation: one snapshot of the whole database from the transaction's first read. */
	@Override
	public void beginSnapshotRead(Connection connection) throws SQLException {
		connection.setAutoCommit(false);
		try (PreparedStatement ps = connection.prepareStatement(SNAPSHOT_READ)) {
			ps.execute();
		}
	}

}
