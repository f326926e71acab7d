package io.github.shardtenancy.spi;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.SQLFeatureNotSupportedException;
import java.util.Collection;
import java.util.List;

import org.jspecify.annotations.Nullable;

/**
 * How one kind of shard database carries the session variables and enforces the shard fence, captures a moving
 * tenant's writes, and writes and checks the rows the online mover copies. Dialects are found with
 * {@link java.util.ServiceLoader} ({@code META-INF/services/io.github.shardtenancy.spi.FenceDialect}); the modules
 * {@code hibernate-shard-tenancy-h2} and {@code hibernate-shard-tenancy-postgresql} ship one each. Implement this to
 * support another database, together with a shard changelog that installs the fence table and checks
 * ({@code docs/adding-a-database.md}), and run the contract tests of {@code hibernate-shard-tenancy-test-fixtures}
 * against it.
 *
 * <p>The contract, for every implementation:
 * <ul>
 * <li>{@link #begin} runs on a freshly borrowed connection before Hibernate uses it. In one round trip it checks the
 * fence and makes the tenant id and directory version visible to every statement of the transaction that follows.
 * If the shard does not own the tenant, or the version is older than the fence requires, it throws an
 * {@link SQLException} with SQLState {@code 40001} whose message has the fence's format (see
 * {@link io.github.shardtenancy.retry.FenceRejection}).</li>
 * <li>After {@link #end} (or after the transaction ends, for transaction-scoped variables), no later borrower of the
 * pooled connection can see the values, also when the transaction rolled back.</li>
 * <li>Values are bound as parameters, never concatenated into SQL.</li>
 * <li>Writes to a tenant table are checked per row by a trigger that {@link #installWriteCheck} installs: a row of
 * another tenant, a tenant the shard does not own, a stale version, or a FROZEN tenant is rejected with 40001.</li>
 * <li>Every change of a tenant's fence row or change capture (freeze, flip, capture on and off, abort, clean) runs in
 * a transaction that first calls {@link #lockTenant}. That lock waits for every transaction of the tenant in flight
 * on the shard, from its {@link #begin} on (a transaction that only read included), and is never starved by
 * transactions of the tenant that begin after it was requested: they are rejected with 40001 (FROZEN) while it waits
 * or holds, and never wait for it, so a transaction of the tenant nested in another one of the same thread (Spring's
 * {@code REQUIRES_NEW}) cannot deadlock with a freeze. A transaction of the tenant therefore runs entirely before or
 * entirely after each change of its fence: a write racing a freeze either commits before the freeze takes effect or
 * is rejected. At {@code REPEATABLE READ} and {@code SERIALIZABLE}, a fence change committed after the transaction's
 * snapshot but before its {@link #begin} is not missed: the begin or the write is rejected with 40001 (the fence's
 * rejection or the database's serialization failure).</li>
 * <li>Where the database can (the PostgreSQL dialect): a tenant-bound transaction's {@code TRUNCATE} of a tenant
 * table and its DDL are refused with SQLSTATE {@code 42501} and the fence's message format (not retried), and
 * row-level security limits its reads to its tenant's rows; the library's own reads across tenants run under
 * {@link #beginMaintenance} or {@link #beginMover}.</li>
 * </ul>
 *
 * <p>Implementations must be stateless and thread-safe.
 */
public interface FenceDialect {

	/**
	 * @param databaseProductName as reported by {@link java.sql.DatabaseMetaData#getDatabaseProductName()}
	 * @return whether this dialect handles that database
	 */
	boolean supports(String databaseProductName);

	/**
	 * Checks the fence and binds the session variables for a tenant's transaction.
	 * @param connection a connection just borrowed from the shard's pool
	 * @param tenantId the tenant, already validated
	 * @param directoryVersion the version of the directory entry the route was taken from
	 * @throws SQLException with SQLState 40001 on a fence rejection, or any other database error
	 */
	void begin(Connection connection, String tenantId, long directoryVersion) throws SQLException;

	/**
	 * The begin as one SQL statement, for sending in the same flight as the transaction's first query instead of in a
	 * round trip of its own. Its parameters are the tenant id (1, a string) and the directory version (2, a
	 * long); it must do exactly what {@link #begin} does after switching auto-commit off, and return one result set
	 * (which is discarded). The connection provider prepares {@code beginStatement + ";\n" + query} for the first
	 * {@code SELECT} of a transaction, shifts the query's parameters by two, and answers with the query's result; this
	 * needs a driver that runs several statements of one prepared statement in order, numbers their parameters
	 * across the whole text and returns one result per statement (pgjdbc does). For any other first statement, the
	 * provider calls {@link #begin} first.
	 * <p>The default is {@code null}: {@link #begin} always runs on its own (the H2 dialect).
	 * @return the statement, or {@code null}
	 */
	default String beginStatement() {
		return null;
	}

	/**
	 * Makes the transaction about to run on a freshly borrowed connection read-only, before {@link #begin}: a write
	 * inside it is refused by the database with SQLSTATE {@code 25006} (read-only SQL transaction), which the retry
	 * does not retry. Whatever this sets must be undone by {@link #end} or by the pool's reset of the connection.
	 * <p>The default is {@link Connection#setReadOnly(boolean) setReadOnly(true)}, which PostgreSQL's driver turns
	 * into {@code BEGIN READ ONLY} at no round trip of its own (HikariCP resets the flag on return).
	 * @param connection a connection just borrowed from the shard's pool, in auto-commit mode or with no transaction
	 * begun yet
	 * @throws SQLException on a database error
	 */
	default void beginReadOnly(Connection connection) throws SQLException {
		connection.setReadOnly(true);
	}

	/**
	 * Takes the tenant's exclusive fence lock on the shard, held until the connection's transaction ends (commit or
	 * rollback); the library calls it first in every transaction that changes the tenant's fence row or its change
	 * capture. It returns once every transaction of the tenant in flight on the shard (begun with {@link #begin}) has
	 * ended; transactions of the tenant that begin while it waits or holds are rejected by {@link #begin} (or their
	 * first write) with SQLState {@code 40001} and the reason FROZEN, so a stream of new transactions cannot starve
	 * it. It may wait as long as the longest transaction in flight (bounded by the database's lock timeout, if any).
	 * <p>The default selects the tenant's fence row {@code FOR UPDATE}: enough for a dialect whose {@link #begin} and
	 * write check lock that row in a mode that conflicts with it. It locks nothing if the row does not exist yet.
	 * @param connection a connection to the shard with auto-commit off; the caller changes the fence and commits or
	 * rolls back
	 * @param tenantId the tenant
	 * @throws SQLException on a database error (a lock timeout included)
	 */
	default void lockTenant(Connection connection, String tenantId) throws SQLException {
		try (PreparedStatement ps = connection
			.prepareStatement("SELECT tenant_id FROM shard_fence WHERE tenant_id = ? FOR UPDATE")) {
			ps.setString(1, tenantId);
			ps.executeQuery().close();
		}
	}

	/**
	 * Clears whatever {@link #begin} or {@link #beginMover} left on the connection, before it returns to the pool.
	 * @param connection the connection
	 * @throws SQLException on a database error; the caller then evicts the connection
	 */
	void end(Connection connection) throws SQLException;

	/**
	 * Marks a connection as the mover's for one tenant: the fence lets its writes of that tenant's rows through, on a
	 * shard that does not (yet, or any more) own the tenant.
	 * @param connection a connection of the mover's own
	 * @param tenantId the tenant being moved
	 * @throws SQLException on a database error
	 */
	void beginMover(Connection connection, String tenantId) throws SQLException;

	/**
	 * Makes the mover's writes into one table that follow in the connection's current transaction (until it ends, or
	 * until the next call) run as a database's replication apply runs them, so that the application's triggers on the
	 * table do not fire for them: a move copies, catches up and deletes rows, it does not create, change or delete
	 * the application's data, so an audit log or an outbox must see no event from it. Called by the mover before
	 * each of its writes into a tenant table (bulk copy, catch-up, the clean of the source, the removal of an aborted
	 * copy), on a connection marked by {@link #beginMover}, again after every commit.
	 * <p>When it answers {@code true}, the writes also skip the table's foreign-key checks (the mover then calls
	 * {@link #checkForeignKeys} for the rows it wrote), and on the referenced side the actions of foreign keys from
	 * other tenant tables (the mover writes those tables' rows itself); a dialect answers {@code true} only where
	 * that holds (on PostgreSQL: {@code session_replication_role = replica}, transaction-local, where the role may set
	 * it and the table allows it).
	 * <p>The default sets nothing and answers {@code false}: the table's triggers fire for the mover's writes, which is
	 * why {@link #moveTriggerRefusals} must then refuse a move of tables with triggers of the application.
	 * @param connection a connection of the mover's own, in a transaction marked by {@link #beginMover}
	 * @param table the table the following writes go to, a plain SQL identifier (optionally schema-qualified)
	 * @return whether the application's triggers are off for the following writes into the table
	 * @throws SQLException on a database error
	 */
	default boolean moverWritesWithoutTriggers(Connection connection, String table) throws SQLException {
		return false;
	}

	/**
	 * Checks the foreign keys of rows the mover wrote into one table after {@link #moverWritesWithoutTriggers}
	 * answered {@code true}, as the keys' own checks would have: the referenced rows are locked as those checks lock
	 * them, then any written row whose referenced row is missing fails the check. Runs in the connection's current
	 * transaction; the caller commits it.
	 * <p>The default checks nothing (the default {@link #moverWritesWithoutTriggers} switches no check off).
	 * @param connection a connection to the shard the rows were written to, in a transaction marked by
	 * {@link #beginMover}
	 * @param table the table, a plain SQL identifier (optionally schema-qualified)
	 * @param tenantColumn the column holding the tenant id
	 * @param tenantId the tenant whose rows were written
	 * @param keyColumns the table's primary key columns, plain SQL identifiers
	 * @param keys the written rows' primary keys, one value per key column each (as JDBC parameters), or {@code null}
	 * for every row of the tenant in the table
	 * @throws SQLException with SQLState {@code 23503} naming the table and the key if a written row references a
	 * missing row, or on a database error
	 */
	default void checkForeignKeys(Connection connection, String table, String tenantColumn, String tenantId,
			List<String> keyColumns, List<Object[]> keys) throws SQLException {
	}

	/**
	 * Why a move from or to this shard would fire triggers of the application on tenant tables, checked before a
	 * move starts (nothing marked, nothing copied): each answer names the table and the trigger, says why, and how to
	 * remedy it. The library's own triggers (the fence's write check, the change capture) are never named.
	 * <p>The default answers an empty list (a dialect without triggers of its own to tell apart).
	 * @param connection a connection to the shard, as the mover borrows it (its role is the mover's)
	 * @param tables the tenant tables' names, as declared (plain or schema-qualified)
	 * @return one sentence per refused trigger, in table and trigger order; empty if the move may start
	 * @throws SQLException on a database error
	 */
	default List<String> moveTriggerRefusals(Connection connection, List<String> tables) throws SQLException {
		return List.of();
	}

	/**
	 * Installs, idempotently, the per-row write check on one tenant table. An UPDATE or DELETE that matches no row
	 * must not straddle a change of the fence (for example, a transaction begun on this shard before a move whose
	 * rows were cleaned after the flip): with the fence lock held from {@link #begin} on, the flip waits for the
	 * transaction; a dialect whose lock is taken later needs a per-statement check of UPDATE and DELETE as well.
	 * @param connection a connection to the shard
	 * @param table the table name, a plain SQL identifier (letters, digits, underscore, optionally schema-qualified)
	 * @param tenantColumn the column holding the tenant id
	 * @throws SQLException on a database error
	 */
	void installWriteCheck(Connection connection, String table, String tenantColumn) throws SQLException;

	/**
	 * As {@link #installWriteCheck(Connection, String, String)}, and switches the table's row-level security on or
	 * off where the database has it: with it on, a session bound to a tenant reads (and writes) only that tenant's
	 * rows, and work under {@link #beginMover} or {@link #beginMaintenance} reads every row.
	 * <p>The default ignores {@code rowLevelSecurity} (the H2 dialect: H2 has no row-level security); the PostgreSQL
	 * dialect implements it.
	 * @param connection a connection to the shard
	 * @param table the table name, a plain SQL identifier
	 * @param tenantColumn the column holding the tenant id
	 * @param rowLevelSecurity whether the table's rows are filtered by the session's tenant
	 * @throws SQLException on a database error
	 */
	default void installWriteCheck(Connection connection, String table, String tenantColumn, boolean rowLevelSecurity)
			throws SQLException {
		installWriteCheck(connection, table, tenantColumn);
	}

	/**
	 * Marks the connection's transaction (only it) as library maintenance that reads across tenants (verification,
	 * reconciliation, a move's snapshot reads and checksums): row-level security lets it read every tenant's rows,
	 * while the fence's write checks still apply to it. Switches auto-commit off; the caller commits or rolls back.
	 * <p>The default does nothing but switch auto-commit off (a database without row-level security).
	 * @param connection a connection to the shard
	 * @throws SQLException on a database error
	 */
	default void beginMaintenance(Connection connection) throws SQLException {
		connection.setAutoCommit(false);
	}

	/**
	 * Starts the transaction of work with no tenant bound (reads of reference tables) on a connection just borrowed:
	 * a read-only transaction the database enforces, also when the caller works in auto-commit mode (PostgreSQL's
	 * driver ignores {@code setReadOnly} in auto-commit mode), in which no value of the library's session variables
	 * that an earlier borrower left in the session applies. The caller commits or rolls back; auto-commit stays off.
	 * With a role, the transaction runs as that role, one that may read the reference tables only (see
	 * {@link #prepareReferenceRole}).
	 * <p>The default switches auto-commit off and read-only on, and ignores the role.
	 * @param connection a connection just borrowed from the shard's pool
	 * @param role the role to take for the transaction, one {@link #prepareReferenceRole} found usable; or
	 * {@code null} to keep the connection's own
	 * @throws SQLException on a database error
	 */
	default void beginReferenceRead(Connection connection, @Nullable String role) throws SQLException {
		connection.setAutoCommit(false);
		connection.setReadOnly(true);
	}

	/**
	 * Makes a role of the database ready for work with no tenant bound, so that what the library's reading of
	 * statement text lets through runs with privileges the database enforces: the role may read the reference tables
	 * and nothing else, and the connection's role may take it for a transaction. What the connection's role may do,
	 * it does (on PostgreSQL: create the role {@code NOLOGIN}, grant it {@code SELECT} on the reference tables, grant
	 * itself membership); what it may not, it reports with the statement that would do it.
	 * <p>The default answers {@code null}: the database has no roles a transaction can take.
	 * @param owner a connection of the role that migrates the shard (its schema's owner), or the same connection as
	 * {@code connection} when the shard has no other; in auto-commit mode
	 * @param connection a connection to the shard, as the application borrows it, in auto-commit mode
	 * @param role the role's name
	 * @param referenceTables the reference tables, lower case (plain or schema-qualified names)
	 * @return what keeps the role from being used, each a sentence with its remedy, empty if it is usable; or
	 * {@code null} if the database has no such roles
	 * @throws SQLException on a database error
	 */
	default @Nullable List<String> prepareReferenceRole(Connection owner, Connection connection, String role,
			Collection<String> referenceTables) throws SQLException {
		return null;
	}

	/**
	 * Gives the application's role of a shard what it needs on the tables the owner's migrations created, when the
	 * shard is migrated by another role (its owner): on PostgreSQL {@code SELECT, INSERT, UPDATE, DELETE} on every
	 * table and {@code USAGE, SELECT} on every sequence of the schema, and nothing on the fence's secret. Idempotent;
	 * called after each migration.
	 * <p>The default does nothing.
	 * @param owner a connection of the owner, in auto-commit mode
	 * @param application a connection of the application's role (the shard's pool), whose role is granted
	 * @throws SQLException on a database error
	 */
	default void grantApplicationRole(Connection owner, Connection application) throws SQLException {
	}

	/**
	 * Releases what a statement took for the session and would outlive its transaction (on PostgreSQL, session-level
	 * advisory locks), before the connection returns to its pool: the library calls it after work with no tenant
	 * bound and after each shard's part of a query across shards, once their transaction has ended, with auto-commit
	 * on.
	 * <p>The default does nothing.
	 * @param connection the connection, in auto-commit mode
	 * @throws SQLException on a database error
	 */
	default void releaseSession(Connection connection) throws SQLException {
	}

	/**
	 * Ends the first phase of a two-phase commit: checks the transaction's deferred constraints and, where the
	 * database keeps prepared transactions, prepares the connection's transaction under {@code id}, so that it
	 * survives a crash of the client or the server, keeps its locks, and can only be committed or rolled back by
	 * {@link #finishPrepared}. The library uses it for reference writes, which commit on every shard or on none.
	 * <p>The default answers {@code false} and leaves the transaction open, to be committed or rolled back on the
	 * connection (H2: its {@code PREPARE COMMIT} resolves in-doubt transactions only when the database is opened again).
	 * @param connection a connection with auto-commit off and the transaction's work done
	 * @param id the global transaction id: letters, digits, {@code _} and {@code :}, at most 200 characters
	 * @return whether the transaction is prepared (auto-commit is then on, and the connection is in no transaction)
	 * @throws SQLException if a deferred constraint fails or the database cannot prepare; the transaction is then
	 * rolled back or must be
	 */
	default boolean prepare(Connection connection, String id) throws SQLException {
		return false;
	}

	/**
	 * Commits or rolls back a transaction {@link #prepare prepared} under {@code id}, from any session of the same
	 * database.
	 * <p>The default throws {@link SQLFeatureNotSupportedException}: the default {@link #prepare} prepares nothing.
	 * @param connection a connection to the shard, in auto-commit mode
	 * @param id the id given to {@link #prepare}
	 * @param commit {@code true} to commit, {@code false} to roll back
	 * @return {@code false} if no transaction is prepared under {@code id} (it was finished already)
	 * @throws SQLException on a database error
	 */
	default boolean finishPrepared(Connection connection, String id, boolean commit) throws SQLException {
		throw new SQLFeatureNotSupportedException("no prepared transactions");
	}

	/**
	 * The ids of the transactions prepared in the connection's database whose id starts with {@code prefix}: what an
	 * interrupted two-phase commit left for the library to finish.
	 * <p>The default answers an empty list.
	 * @param connection a connection to the shard
	 * @param prefix the start of the ids
	 * @return the ids, in no particular order; empty if none
	 * @throws SQLException on a database error
	 */
	default List<String> preparedIds(Connection connection, String prefix) throws SQLException {
		return List.of();
	}

	/**
	 * The number of statements in a SQL text as this database's driver splits it, by the driver's own reading of
	 * quotes, escapes, dollar quoting and comments: the SQL the library runs with no tenant bound, and the SQL of a
	 * query across shards, must hold exactly one statement, since the statements after a {@code COMMIT} would run
	 * outside the read-only transaction.
	 * <p>The default answers {@code -1}: the dialect cannot tell, and the library reads the text itself (quotes and
	 * comments only), which is an early check, not a guarantee.
	 * @param connection a connection of the shard the SQL will run on (its settings can change how the text reads)
	 * @param sql the SQL text
	 * @return the number of statements (0 for none), or {@code -1} if the dialect cannot tell
	 * @throws SQLException on a database error
	 */
	default int statementCount(Connection connection, String sql) throws SQLException {
		return -1;
	}

	/**
	 * Whether this database has row-level security, that is whether
	 * {@link #installWriteCheck(Connection, String, String, boolean)} with {@code true} makes a tenant-bound session
	 * read only its tenant's rows. Without it, plain JDBC and native SQL read every tenant's rows of a shard unless
	 * their SQL says which tenant; the library logs that once at start-up.
	 * <p>The default answers {@code false} (the H2 dialect); the PostgreSQL dialect answers {@code true}.
	 * @return whether row-level security by tenant is available
	 */
	default boolean hasRowLevelSecurity() {
		return false;
	}

	/**
	 * Tells why row-level security cannot hold for the connection's role: on PostgreSQL, superusers and roles with
	 * {@code BYPASSRLS} are never subject to it.
	 * <p>The default answers {@code null}.
	 * @param connection a connection to the shard, as the application borrows it
	 * @return a sentence naming the role and its attribute, or {@code null} if row-level security applies to it (or
	 * the database has none)
	 * @throws SQLException on a database error
	 */
	default String rowLevelSecurityBypass(Connection connection) throws SQLException {
		return null;
	}

	/**
	 * The privileges of the connection's role beyond what an application's shard role needs, each a sentence that
	 * names it and what it allows, for the start-up report ({@code shard-tenancy.security.strict} refuses to start
	 * instead). Superusers and roles that escape row-level security are told by {@link #rowLevelSecurityBypass}, not
	 * here.
	 * <p>The default answers an empty list.
	 * @param connection a connection to the shard, as the application borrows it
	 * @param tenantTables the tenant tables' names, as declared (plain or schema-qualified)
	 * @return the excess privileges, empty if none
	 * @throws SQLException on a database error
	 */
	default List<String> excessPrivileges(Connection connection, List<String> tenantTables) throws SQLException {
		return List.of();
	}

	/**
	 * Installs, idempotently, the online mover's change capture on one tenant table: a row trigger that, while the
	 * written row's tenant is listed in the shard's {@code shard_capture} table, appends the row's primary key to
	 * {@code shard_change} in the writing transaction (see {@code db/shard-tenancy/shard-changes.xml}). Writes of a
	 * mover's connection are not captured. The table must have a primary key.
	 * <p>The default implementation supports nothing; the H2 and PostgreSQL dialects implement it.
	 * @param connection a connection to the shard
	 * @param table the table name, a plain SQL identifier
	 * @param tenantColumn the column holding the tenant id
	 * @throws SQLException on a database error, or {@link java.sql.SQLFeatureNotSupportedException} if this dialect
	 * has no change capture
	 */
	default void installChangeCapture(Connection connection, String table, String tenantColumn) throws SQLException {
		throw new java.sql.SQLFeatureNotSupportedException(getClass().getSimpleName()
				+ " has no change capture for the online mover (table " + table + ")");
	}

	/**
	 * Starts a read-only transaction that sees one consistent snapshot of every table until it ends (the online
	 * mover's bulk copy and each catch-up round). The caller commits or rolls back, then restores auto-commit and
	 * isolation.
	 * <p>The default uses {@link Connection#TRANSACTION_REPEATABLE_READ}, a snapshot on PostgreSQL.
	 * @param connection a connection of the mover's own
	 * @throws SQLException on a database error
	 */
	default void beginSnapshotRead(Connection connection) throws SQLException {
		connection.setAutoCommit(false);
		connection.setTransactionIsolation(Connection.TRANSACTION_REPEATABLE_READ);
	}

	/**
	 * Writes rows copied from another shard into a table of this shard: a row whose primary key is absent is
	 * inserted, a row whose primary key exists is updated in place (never deleted and inserted again, which would
	 * cascade to its children). Used by the online mover's catch-up, on a connection marked by {@link #beginMover}.
	 * <p>The default writes nothing and answers {@code false}: the mover then writes the rows portably, a batch of
	 * UPDATEs by key and a batch of INSERTs for the rows no UPDATE found. A dialect with a native upsert (one statement
	 * per batch) writes them in fewer statements.
	 * @param target a connection to this shard, in a transaction marked as the mover's
	 * @param table the table, a plain SQL identifier (optionally schema-qualified)
	 * @param columns the table's columns, plain SQL identifiers, in the order of each row's values
	 * @param keyColumns the primary key's columns, a non-empty subset of {@code columns}
	 * @param updateColumns the columns the update of an existing row sets, a subset of {@code columns} without the
	 * key's: every other column but those whose values the database draws (an identity column outside the key, which
	 * PostgreSQL refuses to update when it is {@code GENERATED ALWAYS}); may be empty (the existing row is left as it
	 * is). An inserted row gets every column's value, identity columns too ({@code OVERRIDING SYSTEM VALUE})
	 * @param rows the rows, each with one value per column (as read with {@link java.sql.ResultSet#getObject(int)});
	 * may be empty
	 * @return whether the rows were written; {@code false} means nothing was written
	 * @throws SQLException on a database error (an SQLSTATE of class 23 for a constraint violation, which the mover
	 * retries after its other writes); the caller rolls back
	 */
	default boolean upsert(Connection target, String table, List<String> columns, List<String> keyColumns,
			List<String> updateColumns, List<Object[]> rows) throws SQLException {
		return false;
	}

	/**
	 * Refreshes the planner's statistics of a table the online mover has just filled with a tenant's rows, so that
	 * the catch-up's statements, and the tenant's own once the move has flipped, are planned for the rows the table
	 * holds now, not for what it held before the copy (often nothing, on a shard the tenant had left). Called on a
	 * connection in auto-commit mode,
	 * after the copy, per copied table; a role that may not do it must be left to the database's own schedule
	 * (autovacuum), without an error.
	 * <p>The default does nothing.
	 * @param connection a connection to this shard
	 * @param table the table, a plain SQL identifier (optionally schema-qualified)
	 * @throws SQLException on a database error
	 */
	default void analyze(Connection connection, String table) throws SQLException {
	}

	/**
	 * A query that answers a list of primary keys as rows of the key's columns, typed as the table's columns, from one
	 * parameter per key column: a {@code text} array (bound with {@link Connection#createArrayOf} of {@code "text"})
	 * of that column's values, the values of one key at the same index in every array, each value as the capture
	 * trigger logs it (the column's text form). The online mover reads and deletes rows by key with
	 * {@code (k1, k2) IN (keyList)}: one statement of a fixed text per table, whatever the number of keys, which the
	 * database plans once, where a list of parameters ({@code (k1, k2) IN ((?, ?), ...)}) is planned again for every
	 * list and costs more the longer the list and the key.
	 * <p>The default is {@code null}: the mover lists every key's values as parameters.
	 * @param connection a connection to this shard
	 * @param table the table, a plain SQL identifier (optionally schema-qualified)
	 * @param keyColumns the primary key's columns, in key order, as the database stores their names
	 * @return the query, with exactly {@code keyColumns.size()} parameters, or {@code null}
	 * @throws SQLException on a database error, or if the table or a column is not found
	 */
	default String keyList(Connection connection, String table, List<String> keyColumns) throws SQLException {
		return null;
	}

	/**
	 * Names how {@link #countAndChecksum} computes its checksum. The online mover lets the databases compute the
	 * checksums of a move's verification only when the source's and the target's dialects answer the same non-null
	 * name (both sides of a comparison must be computed the same way); otherwise it reads the rows and computes a
	 * portable checksum itself.
	 * <p>The default is {@code null}: no in-database checksum.
	 * @return the name of the algorithm, for example {@code postgresql-hashtextextended-v1}, or {@code null}
	 */
	default String checksumAlgorithm() {
		return null;
	}

	/**
	 * Counts a tenant's rows in one table and computes a checksum of them in the database, sending one row instead of
	 * the table's. The checksum must not depend on the order of the rows, and must be equal for equal rows on any
	 * database whose dialect has the same {@link #checksumAlgorithm()}.
	 * @param connection a connection to this shard, in a transaction that may read every tenant's rows
	 * ({@link #beginMaintenance} or {@link #beginSnapshotRead})
	 * @param table the table, a plain SQL identifier (optionally schema-qualified)
	 * @param columns the columns to include, plain SQL identifiers, in a fixed order
	 * @param tenantColumn the column holding the tenant id
	 * @param tenantId the tenant
	 * @return {@code {count, checksum}}; never {@code null}
	 * @throws SQLException on a database error, or {@link SQLFeatureNotSupportedException} if
	 * {@link #checksumAlgorithm()} is {@code null} (the default)
	 */
	default long[] countAndChecksum(Connection connection, String table, List<String> columns, String tenantColumn,
			String tenantId) throws SQLException {
		throw new SQLFeatureNotSupportedException(getClass().getSimpleName() + " has no in-database checksum");
	}


	/**
	 * Measures every tenant's rows in one table, and the bytes they take where the database can estimate it, for the
	 * load figures ({@link io.github.shardtenancy.TenantLoads#measure()}). One query grouped by tenant; it reads the
	 * whole table.
	 * <p>The default counts rows ({@code SELECT tenantColumn, COUNT(*) ... GROUP BY tenantColumn}) and estimates no
	 * bytes ({@code -1}), as on H2; the PostgreSQL dialect adds the sum of {@code pg_column_size} of the rows.
	 * @param connection a connection to this shard, in a transaction that may read every tenant's rows
	 * ({@link #beginMaintenance})
	 * @param table the table, a plain SQL identifier (optionally schema-qualified)
	 * @param tenantColumn the column holding the tenant id
	 * @param sink told each tenant's {@code (tenantId, rows, bytes)}, bytes {@code -1} when not estimated
	 * @throws SQLException on a database error (a missing table or column)
	 */
	default void tenantStorage(Connection connection, String table, String tenantColumn, TenantStorageSink sink)
			throws SQLException {
		String column = DialectSql.identifier(tenantColumn);
		try (PreparedStatement ps = connection.prepareStatement("SELECT " + column + ", COUNT(*) FROM "
				+ DialectSql.identifier(table) + " GROUP BY " + column);
				java.sql.ResultSet rs = ps.executeQuery()) {
			while (rs.next()) {
				sink.tenant(rs.getString(1), rs.getLong(2), -1);
			}
		}
	}

	/**
	 * Measures one tenant's rows in one table, and the bytes they take where the database can estimate it, for a
	 * move's pre-flight check ({@link io.github.shardtenancy.TenantMover#check}). One query; it reads the tenant's
	 * rows.
	 * <p>The default counts them ({@code SELECT COUNT(*) ... WHERE tenantColumn = ?}) and estimates no bytes
	 * ({@code -1}), as on H2; the PostgreSQL dialect adds the sum of {@code pg_column_size} of the rows.
	 * @param connection a connection to this shard, in a transaction that may read every tenant's rows
	 * ({@link #beginMaintenance})
	 * @param table the table, a plain SQL identifier (optionally schema-qualified)
	 * @param tenantColumn the column holding the tenant id
	 * @param tenantId the tenant
	 * @param sink told the tenant's {@code (tenantId, rows, bytes)} once, bytes {@code -1} when not estimated
	 * @throws SQLException on a database error (a missing table or column)
	 */
	default void tenantStorage(Connection connection, String table, String tenantColumn, String tenantId,
			TenantStorageSink sink) throws SQLException {
		try (PreparedStatement ps = connection.prepareStatement("SELECT COUNT(*) FROM "
				+ DialectSql.identifier(table) + " WHERE " + DialectSql.identifier(tenantColumn) + " = ?")) {
			ps.setString(1, tenantId);
			try (java.sql.ResultSet rs = ps.executeQuery()) {
				rs.next();
				sink.tenant(tenantId, rs.getLong(1), -1);
			}
		}
	}

	/** Told one tenant's storage in one table by {@link #tenantStorage}. */
	@FunctionalInterface
	interface TenantStorageSink {

		/**
		 * @param tenantId the tenant
		 * @param rows its rows in the table
		 * @param bytes their size in bytes as the database estimates it, or {@code -1}
		 */
		void tenant(String tenantId, long rows, long bytes);

	}

	/**
	 * The position up to which this database (a primary) has inserted write-ahead log records: every transaction
	 * committed before the call has its commit record below it. The replica lag sampler reads it on a shard's primary
	 * and compares it with {@link #replayPosition} on the shard's replicas.
	 * <p>The default throws {@link SQLFeatureNotSupportedException}: the database has no replicas the library can route
	 * to.
	 * @param connection a connection to the primary, outside any tenant's transaction
	 * @return the position, in bytes of log from the log's start
	 * @throws SQLException on a database error, or {@link SQLFeatureNotSupportedException} (the default)
	 */
	default long logPosition(Connection connection) throws SQLException {
		throw new SQLFeatureNotSupportedException(getClass().getSimpleName() + " does not support read replicas");
	}

	/**
	 * The position up to which this database (a replica) has replayed its primary's write-ahead log, comparable with
	 * {@link #logPosition}.
	 * <p>The default throws {@link SQLFeatureNotSupportedException}.
	 * @param connection a connection to the replica
	 * @return the position, in bytes, or {@code -1} if the database is not a replica (any more: promoted), so it must
	 * not serve reads for its former primary
	 * @throws SQLException on a database error, or {@link SQLFeatureNotSupportedException} (the default)
	 */
	default long replayPosition(Connection connection) throws SQLException {
		throw new SQLFeatureNotSupportedException(getClass().getSimpleName() + " does not support read replicas");
	}

}
