package io.github.shardtenancy.postgresql;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.SQLWarning;
import java.sql.Types;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.List;
import java.util.Map;

import io.github.shardtenancy.spi.DialectSql;
import io.github.shardtenancy.spi.FenceDialect;
import org.jspecify.annotations.Nullable;
import org.postgresql.core.BaseConnection;
import org.postgresql.core.NativeQuery;
import org.postgresql.core.Parser;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The PostgreSQL fence: PL/pgSQL functions installed by the shard changelog ({@code shard_fence_begin},
 * {@code shard_fence_mover}, {@code shard_fence_install} and the per-table row triggers); the statements sent from
 * here are in the {@code .sql} files next to this class. Also the online mover's upsert
 * ({@code INSERT ... ON CONFLICT}) and in-database checksum; its bulk copy is {@link PostgresBulkCopier}.
 *
 * <p>The fence lock is an advisory lock per tenant, transaction-scoped: {@link #begin} holds it shared (or rejects
 * with FROZEN if a freeze holds or waits for it), {@link #lockTenant} takes it exclusively. The row trigger has no
 * {@code WHEN} clause; its first line accepts the rows of the tenant the begin found writable.
 *
 * <p>The variables ({@code shard_tenancy.tenant}, {@code shard_tenancy.version}, {@code shard_tenancy.role}) are set
 * with {@code set_config(name, value, true)}, which lasts until the end of the current transaction. {@link #begin}
 * and {@link #beginMover} therefore switch auto-commit off and open the transaction themselves (the fence check and
 * the binding run as its first statement), and nothing outlives it: not a commit, not a rollback. A session-level
 * {@code SET} would be wrong twice over: it stays on the pooled connection for the next borrower, and it is undone
 * when the transaction it ran in rolls back.
 *
 * <p>Consequences for callers: the work must run in that transaction and commit it (Hibernate and Spring's
 * transaction managers do; on the library's routing {@code DataSource} the connection itself commits after each
 * statement in auto-commit mode); the connection handed out runs the begin again in each transaction, so no
 * transaction on it runs without tenant. The mover
 * mark is transaction-scoped for the same reason: a mover connection that was not cleaned up cannot leak its right
 * to bypass the fence to a later borrower.
 *
 * <p>{@link #end} rolls back a transaction still open on the connection (none is, after a commit or rollback), so
 * whatever it bound is gone before the connection returns to its pool, independently of the pool's own reset. It
 * sends nothing to the server when no transaction is open. Stateless and thread-safe.
 */
public final class PostgresFenceDialect implements FenceDialect {

	private static final Logger log = LoggerFactory.getLogger(PostgresFenceDialect.class);

	/** Checks the fence and binds the variables: one PL/pgSQL call (shard.xml). */
	private static final String BEGIN = DialectSql.load(PostgresFenceDialect.class, "begin");

	private static final String MOVER = DialectSql.load(PostgresFenceDialect.class, "mover");

	private static final String LOCK_TENANT = DialectSql.load(PostgresFenceDialect.class, "lock-tenant");

	private static final String LOG_POSITION = DialectSql.load(PostgresFenceDialect.class, "log-position");

	private static final String REPLAY_POSITION = DialectSql.load(PostgresFenceDialect.class, "replay-position");

	private static final String INSTALL_WRITE_CHECK = DialectSql.load(PostgresFenceDialect.class,
			"install-write-check");

	private static final String MAINTENANCE = DialectSql.load(PostgresFenceDialect.class, "maintenance");

	/** SQLSTATE {@code insufficient_privilege}. */
	static final String INSUFFICIENT_PRIVILEGE = "42501";

	private static final String GRANT_APPLICATION_ROLE = DialectSql.load(PostgresFenceDialect.class,
			"grant-application-role");

	private static final String REFERENCE_READ = DialectSql.load(PostgresFenceDialect.class, "reference-read");

	private static final String RELEASE_SESSION = DialectSql.load(PostgresFenceDialect.class, "release-session");

	private static final String EXCESS_PRIVILEGES = DialectSql.load(PostgresFenceDialect.class, "excess-privileges");

	/** Whether the role may SET session_replication_role (PostgreSQL 15+). */
	private static final String REPLICA_PRIVILEGE = DialectSql.load(PostgresFenceDialect.class,
			"copy-replica-privilege");

	/** Whether the role may SET session_replication_role before PostgreSQL 15 (a superuser). */
	private static final String REPLICA_PRIVILEGE_BEFORE_15 = DialectSql.load(PostgresFenceDialect.class,
			"copy-replica-privilege-before-15");

	/** Why the mover's writes into a table may not use replica, or NULL. Parameter: the table. */
	private static final String REPLICA_REFUSAL = DialectSql.load(PostgresFenceDialect.class, "copy-replica-refusal");

	/** Replica (or origin again) for the mover's writes into one table, PostgreSQL 15 and later. */
	private static final String MOVER_REPLICA = DialectSql.fill(
			DialectSql.load(PostgresFenceDialect.class, "mover-replica"),
			Map.of("privilege", "(" + REPLICA_PRIVILEGE + ")", "refusal", REPLICA_REFUSAL));

	/** As {@link #MOVER_REPLICA}, before PostgreSQL 15. */
	private static final String MOVER_REPLICA_BEFORE_15 = DialectSql.fill(
			DialectSql.load(PostgresFenceDialect.class, "mover-replica"),
			Map.of("privilege", "(" + REPLICA_PRIVILEGE_BEFORE_15 + ")", "refusal", REPLICA_REFUSAL));

	private static final String MOVE_TRIGGER_REFUSALS = DialectSql.load(PostgresFenceDialect.class,
			"move-trigger-refusals");

	private static final String MOVER_WRITTEN_ROWS = DialectSql.load(PostgresFenceDialect.class,
			"mover-written-rows");

	private static final String ROW_LEVEL_SECURITY_BYPASS = DialectSql.load(PostgresFenceDialect.class,
			"row-level-security-bypass");

	private static final String INSTALL_CHANGE_CAPTURE = DialectSql.load(PostgresFenceDialect.class,
			"install-change-capture");

	private static final String COUNT_AND_CHECKSUM = DialectSql.load(PostgresFenceDialect.class,
			"count-and-checksum");

	private static final String UPSERT = DialectSql.load(PostgresFenceDialect.class, "upsert");

	private static final String KEY_TYPES = DialectSql.load(PostgresFenceDialect.class, "key-types");

	private static final String KEY_LIST = DialectSql.load(PostgresFenceDialect.class, "key-list");

	private static final String ANALYZE = DialectSql.load(PostgresFenceDialect.class, "analyze");

	private static final String TENANT_STORAGE = DialectSql.load(PostgresFenceDialect.class, "tenant-storage");

	private static final String TENANT_STORAGE_OF_ONE = DialectSql.load(PostgresFenceDialect.class,
			"tenant-storage-of-one");

	private static final String PREPARE_CHECK = DialectSql.load(PostgresFenceDialect.class, "prepare-check");

	private static final String PREPARED_TRANSACTIONS = DialectSql.load(PostgresFenceDialect.class,
			"prepared-transactions");

	private static final String PREPARE = DialectSql.load(PostgresFenceDialect.class, "prepare");

	private static final String COMMIT_PREPARED = DialectSql.load(PostgresFenceDialect.class, "commit-prepared");

	private static final String ROLLBACK_PREPARED = DialectSql.load(PostgresFenceDialect.class, "rollback-prepared");

	private static final String PREPARED_IDS = DialectSql.load(PostgresFenceDialect.class, "prepared-ids");

	/** What a global transaction id may hold: it is written into the statement as a literal. */
	private static final java.util.regex.Pattern TRANSACTION_ID = java.util.regex.Pattern.compile("[A-Za-z0-9_:]{1,200}");

	/** Rows per multi-row upsert, at most. */
	private static final int MAX_ROWS_PER_UPSERT = 1000;

	/** Bind parameters per statement, at most (the protocol allows 32767). */
	private static final int MAX_PARAMETERS = 30_000;

	@Override
	public boolean supports(String databaseProductName) {
		return "PostgreSQL".equalsIgnoreCase(databaseProductName);
	}

	@Override
	public void begin(Connection connection, String tenantId, long directoryVersion) throws SQLException {
		connection.setAutoCommit(false);
		try (PreparedStatement ps = connection.prepareStatement(BEGIN)) {
			ps.setString(1, tenantId);
			ps.setLong(2, directoryVersion);
			ps.execute();
		}
	}

	/**
	 * {@code SELECT shard_fence_begin(?, ?)}: pgjdbc sends it with the transaction's first query (and the
	 * {@code BEGIN} it adds itself) in one flight, so a transaction that starts with a query makes as many round trips
	 * as without the library.
	 */
	@Override
	public String beginStatement() {
		return BEGIN;
	}

	/**
	 * {@code SELECT shard_fence_lock(?)} (shard.xml): the tenant's advisory lock, exclusive, until the transaction
	 * ends. {@code shard_fence_begin} holds it shared from the begin on and only tries it, rejecting with FROZEN when
	 * it is held or waited for, so this lock waits for the tenant's transactions in flight and is never starved.
	 */
	@Override
	public void lockTenant(Connection connection, String tenantId) throws SQLException {
		try (PreparedStatement ps = connection.prepareStatement(LOCK_TENANT)) {
			ps.setString(1, tenantId);
			ps.execute();
		}
	}

	@Override
	public void end(Connection connection) throws SQLException {
		if (!connection.isClosed() && !connection.getAutoCommit()) {
			// pgjdbc sends ROLLBACK only when a transaction is open; after a commit this is a local no-op.
			connection.rollback();
		}
	}

	@Override
	public void beginMover(Connection connection, String tenantId) throws SQLException {
		connection.setAutoCommit(false);
		try (PreparedStatement ps = connection.prepareStatement(MOVER)) {
			ps.setString(1, tenantId);
			ps.execute();
		}
	}

	/**
	 * {@code mover-replica.sql}: {@code set_config('session_replication_role', 'replica', true)} when the role may set
	 * it ({@code has_parameter_privilege}, or a superuser before PostgreSQL 15) and the table allows it
	 * ({@code copy-replica-refusal.sql}), else {@code origin} again: one statement, one round trip. Replica switches
	 * off, until the transaction ends, every trigger enabled {@code ORIGIN} (the default) of every table: the
	 * application's, the fence's row check, the change capture and the internal triggers of foreign keys; the mover
	 * writes only the moving tenant's rows, which the fence would accept, captures nothing under its mark, and checks
	 * the foreign keys of the rows it wrote ({@link #checkForeignKeys}).
	 */
	@Override
	public boolean moverWritesWithoutTriggers(Connection connection, String table) throws SQLException {
		String sql = connection.getMetaData().getDatabaseMajorVersion() >= 15 ? MOVER_REPLICA : MOVER_REPLICA_BEFORE_15;
		try (PreparedStatement ps = connection.prepareStatement(sql)) {
			ps.setString(1, table);
			try (ResultSet rs = ps.executeQuery()) {
				return rs.next() && "replica".equals(rs.getString(1));
			}
		}
	}

	/**
	 * Locks the referenced rows of the written rows {@code FOR KEY SHARE} and counts the written rows whose referenced
	 * row is missing, for every foreign key of the table ({@code copy-foreign-keys.sql}, {@code copy-lock-parents.sql},
	 * {@code copy-missing-parents.sql}); the written rows are selected by tenant and key with parameters
	 * ({@code mover-written-rows.sql}).
	 */
	@Override
	public void checkForeignKeys(Connection connection, String table, String tenantColumn, String tenantId,
			List<String> keyColumns, List<Object[]> keys) throws SQLException {
		if (keys != null && keys.isEmpty()) {
			return;
		}
		ForeignKeyCheck.check(connection, table, parameters -> {
			parameters.add(tenantId);
			String keyCondition = "";
			if (keys != null) {
				keyCondition = "AND (" + String.join(", ", keyColumns.stream().map(DialectSql::identifier).toList())
						+ ") IN (" + keyList(connection, table, keyColumns) + ")";
				for (int column = 0; column < keyColumns.size(); column++) {
					String[] values = new String[keys.size()];
					for (int k = 0; k < values.length; k++) {
						values[k] = String.valueOf(keys.get(k)[column]);
					}
					parameters.add(connection.createArrayOf("text", values));
				}
			}
			return DialectSql.fill(MOVER_WRITTEN_ROWS, Map.of("table", DialectSql.identifier(table), "tenantColumn",
					DialectSql.identifier(tenantColumn), "keys", keyCondition));
		});
	}

	/**
	 * Every trigger of the application on INSERT, UPDATE or DELETE of a tenant table ({@code move-trigger-refusals.sql})
	 * that the mover's writes would fire: one enabled {@code ALWAYS} (fires with replica too) or, where the mover's
	 * writes use replica, {@code REPLICA}; and one enabled {@code ORIGIN} (the default) where they cannot use it, because
	 * the role may not set {@code session_replication_role} or the table does not allow it
	 * ({@code copy-replica-refusal.sql}).
	 */
	@Override
	public List<String> moveTriggerRefusals(Connection connection, List<String> tables) throws SQLException {
		record Trigger(String table, String name, String enabled) {
		}
		List<Trigger> triggers = new ArrayList<>();
		try (PreparedStatement ps = connection.prepareStatement(MOVE_TRIGGER_REFUSALS)) {
			ps.setArray(1, connection.createArrayOf("text", tables.toArray()));
			try (ResultSet rs = ps.executeQuery()) {
				while (rs.next()) {
					triggers.add(new Trigger(rs.getString(1), rs.getString(2), rs.getString(3)));
				}
			}
		}
		List<String> refusals = new ArrayList<>();
		Map<String, String> whyNotReplica = new java.util.HashMap<>();
		for (Trigger trigger : triggers) {
			String why = whyNotReplica.get(trigger.table());
			if (why == null && !whyNotReplica.containsKey(trigger.table())) {
				why = PostgresBulkCopier.replicaRefusal(connection, trigger.table());
				whyNotReplica.put(trigger.table(), why);
			}
			String named = "table " + trigger.table() + ", trigger " + trigger.name();
			if ("A".equals(trigger.enabled())) {
				refusals.add(named + ": it is enabled ALWAYS, so it fires for the mover's writes also with "
						+ "session_replication_role = replica (ALTER TABLE " + trigger.table() + " ENABLE TRIGGER "
						+ trigger.name() + " makes it an ORIGIN trigger, which the mover's writes do not fire)");
			}
			else if (why != null && "O".equals(trigger.enabled())) {
				refusals.add(named + ": the mover's writes into the table cannot run with session_replication_role "
						+ "= replica, so the trigger would fire for every row the move copies, catches up and "
						+ "deletes, because " + why);
			}
			else if (why == null && "R".equals(trigger.enabled())) {
				refusals.add(named + ": it is enabled REPLICA, so it fires for the mover's writes, which run with "
						+ "session_replication_role = replica (ALTER TABLE " + trigger.table() + " ENABLE TRIGGER "
						+ trigger.name() + " makes it an ORIGIN trigger)");
			}
		}
		return refusals;
	}

	/** Installs the checks and the row-level security policy ({@code shard_fence_install(?, ?)}, shard.xml). */
	@Override
	public void installWriteCheck(Connection connection, String table, String tenantColumn) throws SQLException {
		installWriteCheck(connection, table, tenantColumn, true);
	}

	/**
	 * Calls {@code shard_fence_install(table, column, rowLevelSecurity)}: the write checks, the TRUNCATE refusal and,
	 * if asked, the policy {@code shard_fence_tenant} with {@code ENABLE} and {@code FORCE ROW LEVEL SECURITY}
	 * (else the policy is dropped and row-level security disabled). Changing row-level security needs the table's
	 * owner; leaving it as it is does not.
	 * <p>It also makes the tenant column's default the bound tenant ({@code shard_fence_tenant_default}:
	 * {@code nullif(current_setting('shard_tenancy.tenant', true), '')} cast to the column's type), so that a plain
	 * JDBC INSERT that omits the column writes the transaction's tenant, and one with no tenant bound writes NULL,
	 * which the column's NOT NULL constraint or the write check refuses. A default of the application's own is kept,
	 * and so is the column when the role does not own the table: the database's warning is logged.
	 */
	@Override
	public void installWriteCheck(Connection connection, String table, String tenantColumn, boolean rowLevelSecurity)
			throws SQLException {
		try (PreparedStatement ps = connection.prepareStatement(INSTALL_WRITE_CHECK)) {
			ps.setString(1, DialectSql.identifier(table));
			ps.setString(2, DialectSql.identifier(tenantColumn));
			ps.setBoolean(3, rowLevelSecurity);
			ps.execute();
			for (SQLWarning w = ps.getWarnings(); w != null; w = w.getNextWarning()) {
				log.warn("{}", w.getMessage());
			}
		}
	}

	/** {@code SELECT shard_fence_maintenance()} in a transaction of its own (auto-commit off). */
	@Override
	public void beginMaintenance(Connection connection) throws SQLException {
		connection.setAutoCommit(false);
		try (PreparedStatement ps = connection.prepareStatement(MAINTENANCE)) {
			ps.execute();
		}
	}

	/**
	 * Auto-commit off and read-only on, which pgjdbc turns into {@code BEGIN READ ONLY}, then
	 * {@code reference-read.sql} as the transaction's first statement: the session-level advisory locks an earlier
	 * borrower left released, the library's variables cleared for the transaction, and the role taken for it
	 * ({@code SET LOCAL ROLE}, or {@code NONE}: the session's own).
	 */
	@Override
	public void beginReferenceRead(Connection connection, @Nullable String role) throws SQLException {
		connection.setAutoCommit(false);
		connection.setReadOnly(true);
		try (PreparedStatement ps = connection.prepareStatement(REFERENCE_READ)) {
			ps.setString(1, role != null ? role : "none");
			ps.execute();
		}
	}

	/** @return the connection's {@code current_user} (not the login name, which may carry a server suffix) */
	static String currentUser(Connection connection) throws SQLException {
		try (PreparedStatement ps = connection.prepareStatement("SELECT current_user");
				ResultSet rs = ps.executeQuery()) {
			rs.next();
			return rs.getString(1);
		}
	}

	/**
	 * Creates the role ({@code NOLOGIN}) if it is missing and the shard's role may create roles, grants it
	 * {@code USAGE} on the reference tables' schemas and {@code SELECT} on them where the shard's role may, and grants
	 * the shard's role membership in it if it cannot take it yet and may; then reports what is still missing, and
	 * every relation outside the system schemas the role may use that is not a reference table (granted to it, to a
	 * role it belongs to, or to {@code PUBLIC}).
	 */
	@Override
	public List<String> prepareReferenceRole(Connection owner, Connection connection, String role,
			Collection<String> referenceTables) throws SQLException {
		return PostgresReferenceRole.prepare(owner, connection, role, referenceTables);
	}

	/**
	 * Runs the statements {@code grant-application-role.sql} answers: {@code USAGE} on the current schema,
	 * {@code SELECT, INSERT, UPDATE, DELETE} on every table and {@code USAGE, SELECT} on every sequence of it, then
	 * {@code REVOKE ALL ON shard_fence_key}.
	 */
	@Override
	public void grantApplicationRole(Connection owner, Connection application) throws SQLException {
		String role = currentUser(application);
		List<String> statements = new ArrayList<>();
		try (PreparedStatement ps = owner.prepareStatement(GRANT_APPLICATION_ROLE)) {
			for (int i = 1; i <= 4; i++) {
				ps.setString(i, role);
			}
			try (ResultSet rs = ps.executeQuery()) {
				while (rs.next()) {
					statements.add(rs.getString(1));
				}
			}
		}
		try (java.sql.Statement s = owner.createStatement()) {
			for (String statement : statements) {
				s.execute(statement);
			}
		}
	}

	/** {@code SELECT pg_advisory_unlock_all()}: session-level advisory locks outlive the transaction. */
	@Override
	public void releaseSession(Connection connection) throws SQLException {
		try (PreparedStatement ps = connection.prepareStatement(RELEASE_SESSION)) {
			ps.execute();
		}
	}

	/**
	 * {@code prepare-check.sql} (deferred constraints checked now), then, if {@code prepared-transactions.sql} says the
	 * server keeps prepared transactions, {@code prepare.sql}; auto-commit is then switched on, as pgjdbc's own
	 * {@code PGXAConnection} does after a prepare (the session is in no transaction).
	 */
	@Override
	public boolean prepare(Connection connection, String id) throws SQLException {
		String literal = transactionId(id);
		try (PreparedStatement check = connection.prepareStatement(PREPARE_CHECK)) {
			check.execute();
		}
		try (PreparedStatement enabled = connection.prepareStatement(PREPARED_TRANSACTIONS);
				ResultSet rs = enabled.executeQuery()) {
			if (!rs.next() || !rs.getBoolean(1)) {
				return false;
			}
		}
		try (java.sql.Statement prepare = connection.createStatement()) {
			prepare.execute(PREPARE.replace("{id}", literal));
		}
		connection.setAutoCommit(true);
		return true;
	}

	/** {@code commit-prepared.sql} or {@code rollback-prepared.sql}; SQLSTATE 42704 when no such id is prepared. */
	@Override
	public boolean finishPrepared(Connection connection, String id, boolean commit) throws SQLException {
		String literal = transactionId(id);
		try (java.sql.Statement finish = connection.createStatement()) {
			finish.execute((commit ? COMMIT_PREPARED : ROLLBACK_PREPARED).replace("{id}", literal));
			return true;
		}
		catch (SQLException ex) {
			if ("42704".equals(ex.getSQLState())) {
				return false;
			}
			throw ex;
		}
	}

	/** {@code prepared-ids.sql}. */
	@Override
	public List<String> preparedIds(Connection connection, String prefix) throws SQLException {
		List<String> ids = new ArrayList<>();
		try (PreparedStatement ps = connection.prepareStatement(PREPARED_IDS)) {
			ps.setString(1, prefix);
			try (ResultSet rs = ps.executeQuery()) {
				while (rs.next()) {
					ids.add(rs.getString(1));
				}
			}
		}
		return ids;
	}

	private static String transactionId(String id) {
		if (!TRANSACTION_ID.matcher(id).matches()) {
			throw new IllegalArgumentException("A global transaction id holds letters, digits, '_' and ':' only, at "
					+ "most 200 characters, was '" + id + "'");
		}
		return id;
	}

	/**
	 * The statements pgjdbc's own parser finds ({@code org.postgresql.core.Parser.parseJdbcSql}, with the connection's
	 * {@code standard_conforming_strings}): the driver sends each as a protocol message of its own, and PostgreSQL
	 * refuses a second command inside one extended-protocol {@code Parse}, so a text counted as one runs as one.
	 * With {@code preferQueryMode=simple} the count is the driver's reading alone.
	 */
	@Override
	public int statementCount(Connection connection, String sql) throws SQLException {
		BaseConnection pg = connection.unwrap(BaseConnection.class);
		List<NativeQuery> queries = Parser.parseJdbcSql(sql, pg.getStandardConformingStrings(), true, true, false,
				false);
		int count = 0;
		for (NativeQuery query : queries) {
			if (!query.nativeSql.isBlank()) {
				count++;
			}
		}
		return count;
	}

	/**
	 * {@code excess-privileges.sql}: ownership of a tenant table where the DDL refusal (the event trigger) is missing
	 * or disabled, membership in a superuser or {@code BYPASSRLS} role, {@code CREATEROLE}, the privilege to read the
	 * fence's secret ({@code shard_fence_key}, with which SQL could seal settings of its own); and on PostgreSQL 15 and
	 * later the privilege to set {@code session_replication_role}, which switches the write check off for a
	 * transaction.
	 * Nothing for a superuser ({@link #rowLevelSecurityBypass} reports it).
	 */
	@Override
	public List<String> excessPrivileges(Connection connection, List<String> tenantTables) throws SQLException {
		List<String> findings = new ArrayList<>();
		try (PreparedStatement ps = connection.prepareStatement(EXCESS_PRIVILEGES)) {
			ps.setArray(1, connection.createArrayOf("text", tenantTables.toArray()));
			try (ResultSet rs = ps.executeQuery()) {
				while (rs.next()) {
					findings.add(rs.getString(1));
				}
			}
		}
		if (connection.getMetaData().getDatabaseMajorVersion() >= 15 && rowLevelSecurityBypass(connection) == null) {
			try (PreparedStatement ps = connection.prepareStatement(REPLICA_PRIVILEGE);
					ResultSet rs = ps.executeQuery()) {
				if (rs.next() && rs.getBoolean(1)) {
					findings.add("may SET session_replication_role (GRANT SET ON PARAMETER): replica mode switches the "
							+ "fence's write check off for its transaction (REVOKE SET ON PARAMETER "
							+ "session_replication_role FROM ...)");
				}
			}
		}
		return findings;
	}

	/**
	 * The mover's and the maintenance snapshot: a repeatable-read transaction marked as maintenance (its first
	 * statement, so the snapshot is taken by it), since every such snapshot reads rows the session's tenant would not
	 * see under row-level security.
	 */
	@Override
	public void beginSnapshotRead(Connection connection) throws SQLException {
		connection.setAutoCommit(false);
		connection.setTransactionIsolation(Connection.TRANSACTION_REPEATABLE_READ);
		beginMaintenance(connection);
	}

	/** @return {@code true}: the policy {@code shard_fence_tenant} of {@code shard_fence_install} */
	@Override
	public boolean hasRowLevelSecurity() {
		return true;
	}

	/** Reads {@code rolsuper} and {@code rolbypassrls} of {@code current_user} from {@code pg_roles}. */
	@Override
	public String rowLevelSecurityBypass(Connection connection) throws SQLException {
		try (PreparedStatement ps = connection.prepareStatement(ROW_LEVEL_SECURITY_BYPASS);
				ResultSet rs = ps.executeQuery()) {
			if (!rs.next()) {
				return null;
			}
			String role = rs.getString(1);
			if (rs.getBoolean(2)) {
				return "role '" + role + "' is a superuser";
			}
			if (rs.getBoolean(3)) {
				return "role '" + role + "' has BYPASSRLS";
			}
			return null;
		}
	}

	/**
	 * Calls {@code shard_change_install(table, column)} from {@code db/shard-tenancy/shard-changes.xml}: registers the
	 * table and regenerates its fence row function with the primary key's columns, whose capture branch logs the keys
	 * (left alone if already so).
	 */
	@Override
	public void installChangeCapture(Connection connection, String table, String tenantColumn) throws SQLException {
		try (PreparedStatement ps = connection.prepareStatement(INSTALL_CHANGE_CAPTURE)) {
			ps.setString(1, DialectSql.identifier(table));
			ps.setString(2, DialectSql.identifier(tenantColumn));
			ps.execute();
		}
	}

	/**
	 * Multi-row {@code INSERT ... ON CONFLICT (primary key) DO UPDATE}: one statement per chunk of up to 1000 rows
	 * (and 30000 parameters) instead of an UPDATE and maybe an INSERT per row. An existing row is updated in place,
	 * never deleted, so its children are untouched. A {@code String} value is bound untyped ({@link Types#OTHER}), so
	 * that PostgreSQL reads it with its column's type: the mover moves every value as its text form (as {@code COPY}
	 * does), and a {@code String} bound as {@code varchar} is refused by a column of an enum, a date or most other
	 * types.
	 * @return {@code true}: the rows were written
	 */
	@Override
	public boolean upsert(Connection target, String table, List<String> columns, List<String> keyColumns,
			List<String> updateColumns, List<Object[]> rows) throws SQLException {
		List<String> valueColumns = updateColumns.stream().map(DialectSql::identifier).toList();
		String action = valueColumns.isEmpty() ? "NOTHING"
				: "UPDATE SET " + String.join(", ", valueColumns.stream().map(c -> c + " = EXCLUDED." + c).toList());
		String row = "(" + String.join(", ", Collections.nCopies(columns.size(), "?")) + ")";
		String columnList = String.join(", ", columns.stream().map(DialectSql::identifier).toList());
		String keys = String.join(", ", keyColumns.stream().map(DialectSql::identifier).toList());
		int perStatement = Math.max(1, Math.min(MAX_ROWS_PER_UPSERT, MAX_PARAMETERS / columns.size()));
		for (int from = 0; from < rows.size(); from += perStatement) {
			List<Object[]> chunk = rows.subList(from, Math.min(rows.size(), from + perStatement));
			String sql = DialectSql.fill(UPSERT, Map.of("table", DialectSql.identifier(table), "columns", columnList,
					"rows", String.join(", ", Collections.nCopies(chunk.size(), row)), "keys", keys, "action",
					action));
			try (PreparedStatement ps = target.prepareStatement(sql)) {
				int i = 1;
				for (Object[] values : chunk) {
					for (Object value : values) {
						bindUntyped(ps, i++, value);
					}
				}
				ps.executeUpdate();
			}
		}
		return true;
	}

	/**
	 * {@code ANALYZE table} ({@code analyze.sql}), as PostgreSQL's advice on populating a database asks after a bulk
	 * load (https://www.postgresql.org/docs/current/populate.html#POPULATE-ANALYZE); for a role that neither owns
	 * the table nor has its MAINTAIN privilege PostgreSQL skips it with a warning, logged here at DEBUG.
	 */
	@Override
	public void analyze(Connection connection, String table) throws SQLException {
		try (java.sql.Statement statement = connection.createStatement()) {
			statement.execute(DialectSql.fill(ANALYZE, Map.of("table", DialectSql.identifier(table))));
			for (SQLWarning w = statement.getWarnings(); w != null; w = w.getNextWarning()) {
				log.debug("{}", w.getMessage());
			}
		}
	}

	/**
	 * {@code key-list.sql}: {@code SELECT k.c1::type1, ... FROM unnest(?::text[], ...) AS k(c1, ...)}, each type as
	 * {@code key-types.sql} reads it from the catalog ({@code format_type}), so that a key column of any type (a
	 * domain, an enum, {@code numeric(10, 2)}, an array) is compared with values of its own type and its index is used.
	 */
	@Override
	public String keyList(Connection connection, String table, List<String> keyColumns) throws SQLException {
		List<String> types = new ArrayList<>();
		try (PreparedStatement ps = connection.prepareStatement(KEY_TYPES)) {
			ps.setArray(1, connection.createArrayOf("text", keyColumns.toArray()));
			ps.setString(2, table);
			try (ResultSet rs = ps.executeQuery()) {
				while (rs.next()) {
					types.add(rs.getString(1));
				}
			}
		}
		if (types.size() != keyColumns.size()) {
			throw new SQLException("Table " + table + " or one of its key columns " + keyColumns + " was not found",
					"42P01");
		}
		List<String> columns = new ArrayList<>();
		List<String> names = new ArrayList<>();
		for (int i = 0; i < types.size(); i++) {
			columns.add("k.c" + (i + 1) + "::" + types.get(i));
			names.add("c" + (i + 1));
		}
		return DialectSql.fill(KEY_LIST, Map.of("columns", String.join(", ", columns), "arrays",
				String.join(", ", Collections.nCopies(types.size(), "?::text[]")), "names", String.join(", ", names)));
	}

	/**
	 * Binds a {@code String} untyped ({@link Types#OTHER}: pgjdbc sends it with no type, and PostgreSQL reads it with
	 * the type the statement gives it, a column's), anything else as itself.
	 */
	static void bindUntyped(PreparedStatement ps, int index, Object value) throws SQLException {
		if (value instanceof String) {
			ps.setObject(index, value, Types.OTHER);
		}
		else {
			ps.setObject(index, value);
		}
	}

	/** @return {@code postgresql-hashtextextended-v1}: the checksum of {@link #countAndChecksum} */
	@Override
	public String checksumAlgorithm() {
		return "postgresql-hashtextextended-v1";
	}

	/**
	 * {@code hashtextextended} of each row's text form, summed modulo a prime, and the row count, in one query.
	 */
	@Override
	public long[] countAndChecksum(Connection connection, String table, List<String> columns, String tenantColumn,
			String tenantId) throws SQLException {
		String sql = DialectSql.fill(COUNT_AND_CHECKSUM,
				Map.of("columns", String.join(", ", columns.stream().map(DialectSql::identifier).toList()), "table",
						DialectSql.identifier(table), "tenantColumn", DialectSql.identifier(tenantColumn)));
		try (PreparedStatement ps = connection.prepareStatement(sql)) {
			ps.setString(1, tenantId);
			try (ResultSet rs = ps.executeQuery()) {
				rs.next();
				return new long[] { rs.getLong(1), rs.getLong(2) };
			}
		}
	}

	/**
	 * Rows per tenant and the sum of {@code pg_column_size} of each row (the row's stored data, compressed and
	 * TOASTed values included; tuple headers, free space and indexes not), in one grouped query over the table.
	 */
	@Override
	public void tenantStorage(Connection connection, String table, String tenantColumn, TenantStorageSink sink)
			throws SQLException {
		String sql = DialectSql.fill(TENANT_STORAGE, Map.of("table", DialectSql.identifier(table), "tenantColumn",
				DialectSql.identifier(tenantColumn)));
		try (PreparedStatement ps = connection.prepareStatement(sql); ResultSet rs = ps.executeQuery()) {
			while (rs.next()) {
				sink.tenant(rs.getString(1), rs.getLong(2), rs.getLong(3));
			}
		}
	}

	/** One tenant's rows and the sum of their {@code pg_column_size}, as {@link #tenantStorage} measures them. */
	@Override
	public void tenantStorage(Connection connection, String table, String tenantColumn, String tenantId,
			TenantStorageSink sink) throws SQLException {
		String sql = DialectSql.fill(TENANT_STORAGE_OF_ONE, Map.of("table", DialectSql.identifier(table),
				"tenantColumn", DialectSql.identifier(tenantColumn)));
		try (PreparedStatement ps = connection.prepareStatement(sql)) {
			ps.setString(1, tenantId);
			try (ResultSet rs = ps.executeQuery()) {
				rs.next();
				sink.tenant(tenantId, rs.getLong(1), rs.getLong(2));
			}
		}
	}

	/**
	 * {@code pg_current_wal_insert_lsn()} in bytes: the insert position, which every committed transaction's commit
	 * record lies below (https://www.postgresql.org/docs/17/functions-admin.html#FUNCTIONS-ADMIN-BACKUP).
	 */
	@Override
	public long logPosition(Connection connection) throws SQLException {
		return singleLong(connection, LOG_POSITION);
	}

	/**
	 * {@code pg_last_wal_replay_lsn()} in bytes while {@code pg_is_in_recovery()}, else {@code -1}
	 * (https://www.postgresql.org/docs/17/functions-admin.html#FUNCTIONS-RECOVERY-INFO).
	 */
	@Override
	public long replayPosition(Connection connection) throws SQLException {
		return singleLong(connection, REPLAY_POSITION);
	}

	private static long singleLong(Connection connection, String sql) throws SQLException {
		try (PreparedStatement ps = connection.prepareStatement(sql); ResultSet rs = ps.executeQuery()) {
			rs.next();
			return rs.getLong(1);
		}
	}

}
