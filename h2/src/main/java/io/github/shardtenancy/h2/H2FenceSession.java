package io.github.shardtenancy.h2;

import java.lang.ref.WeakReference;
import java.sql.Connection;

import org.h2.engine.Session;
import org.h2.engine.SessionLocal;
import org.h2.index.Index;
import org.h2.jdbc.JdbcConnection;
import org.h2.mvstore.MVMap;
import org.h2.mvstore.db.MVPrimaryIndex;
import org.h2.mvstore.tx.Transaction;
import org.h2.schema.Schema;
import org.h2.table.Table;
import org.h2.value.Value;
import org.h2.value.ValueNull;

/**
 * What the fence trigger can learn from the H2 session it runs in without running a statement: the session
 * variables, and whether the current transaction still holds the lock on the tenant's fence row that an earlier write
 * check of the same transaction took.
 *
 * <p>This reads H2's engine classes ({@code SessionLocal}, its MVStore {@code Transaction}, the fence table's primary
 * index map), which are public but not H2's documented API; it was written against H2 2.4.240. If they cannot be
 * reached (another H2 version, a connection that is not H2's own), every method answers "unknown" and the trigger
 * takes its SQL path, which reads the variables and locks the fence row with one statement per write: slower, never
 * less safe.
 *
 * <p>The lock is remembered per thread (the trigger runs on the thread that executes the statement) as: the H2
 * transaction object, the tenant and directory version it was taken for, and the fence row's entry in the primary
 * index map right after the lock was taken (H2 locks a row by writing an uncommitted entry of its transaction). A
 * later write check skips the lock statement only if the same transaction is running, the variables are unchanged, and
 * that very entry is still in the map as an uncommitted entry of this transaction. A commit or rollback of the
 * transaction, a rollback to a savepoint (or of a failed statement) past the lock, and any other change of the fence
 * row replace the entry, so the next write locks and reads the fence row again. Thread-safe (thread confined).
 */
final class H2FenceSession {

	/**
	 * The variables of one session: tenant and role ({@code null} if unset), version (-1 if unset) and whether the
	 * transaction was declared read-only.
	 */
	record Variables(String tenant, long version, String role, boolean readOnly) {
	}

	/** A fence row lock taken by a transaction, and what was learnt under it. */
	private static final class Lock {

		final WeakReference<Transaction> transaction;

		final String tenant;

		final long version;

		final WeakReference<MVMap<Long, ?>> map;

		final long rowKey;

		final WeakReference<Object> entry;

		/** Whether the tenant's writes are captured for a move, once a capture trigger asked; {@code null} before. */
		Boolean captured;

		Lock(Transaction transaction, String tenant, long version, MVMap<Long, ?> map, long rowKey, Object entry) {
			this.transaction = new WeakReference<>(transaction);
			this.tenant = tenant;
			this.version = version;
			this.map = new WeakReference<>(map);
			this.rowKey = rowKey;
			this.entry = new WeakReference<>(entry);
		}

	}

	private static final ThreadLocal<Lock> LAST_LOCK = new ThreadLocal<>();

	/** Cleared for good when H2's engine classes turn out to be missing or different. */
	private static volatile boolean usable = true;

	private H2FenceSession() {
	}

	/**
	 * @param conn the connection H2 passes to a trigger
	 * @return the session's fence variables, or {@code null} if they cannot be read without a statement
	 */
	static Variables variables(Connection conn) {
		SessionLocal session = session(conn);
		if (session == null) {
			return null;
		}
		try {
			Value version = session.getVariable("SHARD_VERSION");
			Value readOnly = session.getVariable("SHARD_READ_ONLY");
			return new Variables(string(session.getVariable("SHARD_TENANT")),
					version == ValueNull.INSTANCE ? -1 : version.getLong(), string(session.getVariable("SHARD_ROLE")),
					readOnly != ValueNull.INSTANCE && readOnly.getBoolean());
		}
		catch (LinkageError | RuntimeException ex) {
			usable = false;
			return null;
		}
	}

	/**
	 * @param conn the connection H2 passes to a trigger
	 * @param tenant the session tenant
	 * @param version the session's directory version
	 * @return whether this transaction took the lock on the tenant's fence row for the same tenant and version in an
	 * earlier write check, and still holds it ({@code false} when unknown)
	 */
	static boolean holdsLock(Connection conn, String tenant, long version) {
		Lock lock = LAST_LOCK.get();
		if (lock == null || !tenant.equals(lock.tenant) || version != lock.version) {
			return false;
		}
		SessionLocal session = session(conn);
		if (session == null) {
			return false;
		}
		try {
			Transaction transaction = session.getTransaction();
			MVMap<Long, ?> map = lock.map.get();
			if (transaction != lock.transaction.get() || map == null || map.isClosed()) {
				return false;
			}
			Object entry = map.get(lock.rowKey);
			return entry != null && entry == lock.entry.get()
					&& transaction.openMapX(fenceMap(map)).isSameTransaction(lock.rowKey);
		}
		catch (LinkageError | ClassCastException ex) {
			usable = false;
			return false;
		}
		catch (RuntimeException ex) {
			return false; // such as a closed map: lock again
		}
	}

	/**
	 * Remembers that this transaction has just locked the tenant's fence row (whose {@code _ROWID_} is given) and
	 * found the route acceptable.
	 * @param conn the connection H2 passes to a trigger
	 * @param tenant the session tenant
	 * @param version the session's directory version
	 * @param rowKey the fence row's {@code _ROWID_}
	 */
	static void lockTaken(Connection conn, String tenant, long version, long rowKey) {
		LAST_LOCK.remove();
		SessionLocal session = session(conn);
		if (session == null) {
			return;
		}
		try {
			Schema schema = session.getDatabase().findSchema(session.getCurrentSchemaName());
			Table table = schema != null ? schema.findTableOrView(session, "SHARD_FENCE") : null;
			Index index = table != null ? table.getScanIndex(session) : null;
			if (!(index instanceof MVPrimaryIndex primary)) {
				return;
			}
			MVMap<Long, ?> map = primary.getMVMap();
			Transaction transaction = session.getTransaction();
			Object entry = map.get(rowKey);
			if (entry != null && transaction.openMapX(fenceMap(map)).isSameTransaction(rowKey)) {
				LAST_LOCK.set(new Lock(transaction, tenant, version, map, rowKey, entry));
			}
		}
		catch (LinkageError | ClassCastException ex) {
			usable = false;
		}
		catch (RuntimeException ex) {
			// not remembered: the next write locks again
		}
	}

	/**
	 * The capture answer learnt earlier in this transaction, under the fence row lock it still holds. Capture of a
	 * tenant is turned on and off only by transactions that update or lock the tenant's fence row (the mover's
	 * {@code captureOn} and {@code captureOff}), so while a transaction holds that lock the answer cannot change.
	 * @param conn the connection H2 passes to a trigger
	 * @param rowTenant the written row's tenant
	 * @return whether the tenant's writes are captured, or {@code null} if not known without a statement (no lock
	 * held for this tenant and the session's version, a mover's session, or not asked yet in this transaction)
	 */
	static Boolean capturedUnderLock(Connection conn, String rowTenant) {
		Lock lock = lockFor(conn, rowTenant);
		return lock != null ? lock.captured : null;
	}

	/**
	 * Remembers the capture answer a statement just read, if this transaction holds the fence row lock of the tenant.
	 * @param conn the connection H2 passes to a trigger
	 * @param rowTenant the written row's tenant
	 * @param captured whether the tenant's writes are captured
	 */
	static void capturedRead(Connection conn, String rowTenant, boolean captured) {
		Lock lock = lockFor(conn, rowTenant);
		if (lock != null) {
			lock.captured = captured;
		}
	}

	private static Lock lockFor(Connection conn, String rowTenant) {
		Variables vars = variables(conn);
		if (vars == null || vars.role() != null || vars.tenant() == null || !vars.tenant().equals(rowTenant)
				|| !holdsLock(conn, vars.tenant(), vars.version())) {
			return null;
		}
		return LAST_LOCK.get();
	}

	@SuppressWarnings("unchecked")
	private static MVMap<Long, org.h2.value.VersionedValue<Object>> fenceMap(MVMap<Long, ?> map) {
		return (MVMap<Long, org.h2.value.VersionedValue<Object>>) map;
	}

	private static SessionLocal session(Connection conn) {
		if (!usable) {
			return null;
		}
		try {
			if (conn instanceof JdbcConnection jdbc) {
				Session session = jdbc.getSession();
				return session instanceof SessionLocal local ? local : null;
			}
			return null;
		}
		catch (LinkageError | RuntimeException ex) {
			usable = false;
			return null;
		}
	}

	private static String string(Value value) {
		return value == null || value == ValueNull.INSTANCE ? null : value.getString();
	}

}
