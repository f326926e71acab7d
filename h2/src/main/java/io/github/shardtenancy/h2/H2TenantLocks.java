package io.github.shardtenancy.h2;

import java.lang.ref.WeakReference;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.WeakHashMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;

import org.h2.api.ErrorCode;
import org.h2.engine.Database;
import org.h2.engine.SessionLocal;
import org.h2.index.Index;
import org.h2.mvstore.Cursor;
import org.h2.mvstore.MVMap;
import org.h2.mvstore.db.MVPrimaryIndex;
import org.h2.mvstore.tx.Transaction;
import org.h2.result.SearchRow;
import org.h2.schema.Schema;
import org.h2.table.Table;
import org.h2.value.Value;
import org.h2.value.ValueBigint;
import org.h2.value.ValueNull;
import org.h2.value.ValueVarchar;
import org.h2.value.VersionedValue;

/**
 * The tenants' fence locks of the H2 fence, kept in the JVM that runs the database (an embedded or in-memory H2, whose
 * triggers run in the application's JVM): one shared/exclusive lock per database and tenant.
 *
 * <p>Every transaction of a tenant holds the lock shared, from {@link H2FenceDialect#begin} (or, for a session bound
 * by SQL alone, from its first write) until it ends; many transactions of one tenant hold it at once. A change of the
 * tenant's fence or change capture takes it exclusive ({@link H2FenceDialect#lockTenant}): that waits until no
 * other session holds it, and while it waits or holds, every new shared request is refused at once (the caller
 * rejects the transaction with FROZEN, which is retried) instead of queueing: a stream of new transactions cannot
 * starve a freeze, and a transaction nested in another one of the same tenant on the same thread ({@code
 * REQUIRES_NEW}) is refused instead of waiting for a freeze that waits for its outer transaction.
 *
 * <p>A hold ends exactly when what it was taken for ends, checked on every look at the lock (there is no callback
 * from H2 at a transaction's end): a hold taken inside a transaction ends when H2 closes that transaction (commit or
 * rollback, also the rollback of a session that is closed or killed: {@link Transaction#STATUS_CLOSED}); a hold
 * taken by a begin in auto-commit mode (the connection provider begins before Hibernate switches auto-commit off)
 * ends at {@link H2FenceDialect#end} or when the session closes; {@link #release} ends any hold at once. An exclusive
 * waiter looks again every {@value #POLL_MILLIS} ms and whenever a hold is released, and gives up after the session's
 * lock timeout.
 *
 * <p>The fence row and the capture state are read here as the latest committed rows of {@code shard_fence} and
 * {@code shard_capture}, whatever the transaction's isolation level: a REPEATABLE READ or SERIALIZABLE transaction
 * whose snapshot is older than a freeze still sees the freeze. This reads H2's engine classes (written against H2
 * 2.4.240); where they cannot be reached, the callers fall back to the fence's SQL path ({@code SELECT ... FOR
 * UPDATE} of the fence row). Thread-safe.
 */
final class H2TenantLocks {

	/** How often an exclusive waiter looks whether the holds it waits for have ended, in milliseconds. */
	static final long POLL_MILLIS = 1;

	/** Idle tenant locks kept per database before idle ones are dropped (they keep the capture state learnt). */
	private static final int IDLE_LOCKS_KEPT = 4096;

	private static final Map<Database, DatabaseLocks> DATABASES = Collections.synchronizedMap(new WeakHashMap<>());

	/** The databases' locks last looked up, to skip the synchronized map on the hot path. */
	private static volatile DatabaseLocks last;

	/** The hold the current thread took last: the write checks of its transaction find it without a lookup. */
	private static final ThreadLocal<Holder> CURRENT = new ThreadLocal<>();

	private H2TenantLocks() {
	}

	/** One session's hold on a tenant's lock. */
	static final class Holder {

		final SessionLocal session;

		/** The transaction the hold ends with, or {@code null} for a hold that ends at release or session close. */
		final Transaction transaction;

		final String tenant;

		final long version;

		final TenantLock lock;

		volatile boolean released;

		Holder(SessionLocal session, Transaction transaction, String tenant, long version, TenantLock lock) {
			this.session = session;
			this.transaction = transaction;
			this.tenant = tenant;
			this.version = version;
			this.lock = lock;
		}

		boolean alive() {
			return !this.released && !this.session.isClosed()
					&& (this.transaction == null || this.transaction.getStatus() != Transaction.STATUS_CLOSED);
		}

	}

	/** The locks and table handles of one database. */
	private static final class DatabaseLocks {

		/** Weak: the map of databases holds its values strongly, and must not keep a closed database alive. */
		final WeakReference<Database> database;

		final ConcurrentHashMap<String, TenantLock> tenants = new ConcurrentHashMap<>();

		volatile TableHandle fence;

		volatile TableHandle capture;

		DatabaseLocks(Database database) {
			this.database = new WeakReference<>(database);
		}

		TenantLock tenant(String tenant) {
			return this.tenants.computeIfAbsent(tenant, (t) -> new TenantLock(this, t));
		}

	}

	/** A table's primary index map and the positions of the columns read from it. */
	private record TableHandle(MVMap<Long, VersionedValue<SearchRow>> map, int tenantColumn, int stateColumn,
			int minVersionColumn) {
	}

	/** One tenant's shared/exclusive lock in one database. Its monitor guards its fields but the volatile ones. */
	static final class TenantLock {

		private final DatabaseLocks owner;

		private final String tenant;

		private final List<Holder> shared = new ArrayList<>(4);

		private Holder exclusive;

		private int waiting;

		/** Dropped from its database's map: a caller holding it looks the tenant up again. */
		private boolean dropped;

		/**
		 * Whether the tenant's writes are captured, learnt under a shared hold; cleared whenever the lock is granted
		 * exclusive (capture is changed only under it), {@code null} when not known.
		 */
		volatile Boolean captured;

		/** The fence row's {@code _ROWID_}, or -1 if not known yet. */
		volatile long fenceRowKey = -1;

		/** The tenant as the value of the session variable {@code @SHARD_TENANT}, made once. */
		final Value tenantValue;

		/** The directory version last bound for the tenant, as the value of {@code @SHARD_VERSION}. */
		private volatile ValueBigint versionValue;

		TenantLock(DatabaseLocks owner, String tenant) {
			this.owner = owner;
			this.tenant = tenant;
			this.tenantValue = ValueVarchar.get(tenant);
		}

		/**
		 * @param version a directory version
		 * @return the version as the value of {@code @SHARD_VERSION}, the one made for the previous begin if equal
		 */
		Value versionValue(long version) {
			ValueBigint value = this.versionValue;
			if (value == null || value.getLong() != version) {
				value = ValueBigint.get(version);
				this.versionValue = value;
			}
			return value;
		}

		/** @return whether the hold was granted; {@code false} if the lock is gone (look again) or refused */
		private synchronized Boolean tryShared(Holder holder) {
			if (this.dropped) {
				return null;
			}
			prune();
			if (this.waiting > 0 || (this.exclusive != null && this.exclusive.session != holder.session)) {
				return false;
			}
			this.shared.add(holder);
			return true;
		}

		private synchronized Boolean lockExclusive(Holder holder, long timeoutMillis) throws SQLException {
			if (this.dropped) {
				return null;
			}
			if (this.exclusive != null && this.exclusive.session == holder.session && this.exclusive.alive()) {
				return true;
			}
			this.waiting++;
			try {
				long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(Math.max(0, timeoutMillis));
				while (true) {
					prune();
					if (this.exclusive == null && this.shared.stream().allMatch((h) -> h.session == holder.session)) {
						this.exclusive = holder;
						this.captured = null;
						return true;
					}
					long left = deadline - System.nanoTime();
					if (left <= 0) {
						throw new SQLException("Timeout trying to lock the shard fence of tenant '" + this.tenant
								+ "': other transactions of the tenant are still in flight", "HYT00",
								ErrorCode.LOCK_TIMEOUT_1);
					}
					wait(Math.max(1, Math.min(TimeUnit.NANOSECONDS.toMillis(left), POLL_MILLIS)));
				}
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
				throw new SQLException("Interrupted while waiting for the shard fence of tenant '" + this.tenant + "'",
						"HYT00", ErrorCode.LOCK_TIMEOUT_1, ex);
			}
			finally {
				this.waiting--;
			}
		}

		synchronized void release(Holder holder) {
			holder.released = true;
			this.shared.remove(holder);
			if (this.exclusive == holder) {
				this.exclusive = null;
			}
			notifyAll();
			dropIfIdle();
		}

		/** Releases every hold of a session (its {@code end}). */
		synchronized void releaseSession(SessionLocal session) {
			for (Holder h : this.shared) {
				if (h.session == session) {
					h.released = true;
				}
			}
			if (this.exclusive != null && this.exclusive.session == session && this.exclusive.transaction == null) {
				this.exclusive.released = true;
			}
			prune();
			notifyAll();
			dropIfIdle();
		}

		/** @return the live shared hold of a session, or {@code null} */
		synchronized Holder heldBy(SessionLocal session) {
			for (Holder h : this.shared) {
				if (h.session == session && h.alive()) {
					return h;
				}
			}
			return null;
		}

		/** @return how many sessions wait to take this lock exclusive */
		synchronized int waiting() {
			return this.waiting;
		}

		private void prune() {
			boolean changed = this.shared.removeIf((h) -> !h.alive());
			if (this.exclusive != null && !this.exclusive.alive()) {
				this.exclusive = null;
				changed = true;
			}
			if (changed) {
				notifyAll();
			}
		}

		private void dropIfIdle() {
			if (this.shared.isEmpty() && this.exclusive == null && this.waiting == 0
					&& this.owner.tenants.size() > IDLE_LOCKS_KEPT) {
				this.dropped = true;
				this.owner.tenants.remove(this.tenant, this);
			}
		}

	}

	/**
	 * Takes a tenant's lock shared for a session.
	 * @param session the session
	 * @param tenant the tenant
	 * @param version the route's directory version
	 * @param transactionScoped whether the hold ends with the session's current transaction (else at {@link #release})
	 * @return the hold, or {@code null} if a freeze waits for the lock or holds it
	 */
	static Holder enterShared(SessionLocal session, String tenant, long version, boolean transactionScoped) {
		DatabaseLocks locks = locks(session.getDatabase());
		while (true) {
			TenantLock lock = locks.tenant(tenant);
			Holder holder = new Holder(session, transactionScoped ? session.getTransaction() : null, tenant, version,
					lock);
			Boolean granted = lock.tryShared(holder);
			if (granted != null) {
				if (!granted) {
					return null;
				}
				CURRENT.set(holder);
				return holder;
			}
		}
	}

	/**
	 * @param session a session of the database
	 * @param tenant the tenant
	 * @return the tenant's lock in the session's database
	 */
	static TenantLock lock(SessionLocal session, String tenant) {
		return locks(session.getDatabase()).tenant(tenant);
	}

	/**
	 * Takes a tenant's lock exclusive for the session's current transaction, waiting for every other session's hold
	 * to end, up to the session's lock timeout.
	 * @param session the session, in a transaction
	 * @param tenant the tenant
	 * @throws SQLException on timeout (SQLSTATE HYT00, H2's lock timeout) or interruption
	 */
	static void lockExclusive(SessionLocal session, String tenant) throws SQLException {
		DatabaseLocks locks = locks(session.getDatabase());
		while (true) {
			TenantLock lock = locks.tenant(tenant);
			Holder holder = new Holder(session, session.getTransaction(), tenant, -1, lock);
			if (lock.lockExclusive(holder, session.getLockTimeout()) != null) {
				return;
			}
		}
	}

	/**
	 * @param session a session
	 * @param tenant the session's tenant
	 * @param version the session's directory version
	 * @return the session's live shared hold on the tenant's lock for that version, or {@code null}
	 */
	static Holder held(SessionLocal session, String tenant, long version) {
		Holder current = CURRENT.get();
		if (current != null && current.session == session && current.version == version
				&& current.tenant.equals(tenant) && current.alive()) {
			return current;
		}
		DatabaseLocks locks = lookup(session.getDatabase());
		TenantLock lock = locks != null ? locks.tenants.get(tenant) : null;
		Holder holder = lock != null ? lock.heldBy(session) : null;
		if (holder == null || holder.version != version) {
			return null;
		}
		CURRENT.set(holder);
		return holder;
	}

	/** Ends one hold now. */
	static void release(Holder holder) {
		holder.lock.release(holder);
		if (CURRENT.get() == holder) {
			CURRENT.remove();
		}
	}

	/**
	 * Ends every hold of a session on a tenant's lock now (the session's {@code end}).
	 * @param session the session
	 * @param tenant the tenant it was bound to, or {@code null}
	 */
	static void releaseSession(SessionLocal session, String tenant) {
		Holder current = CURRENT.get();
		if (current != null && current.session == session) {
			CURRENT.remove();
		}
		if (tenant == null) {
			return;
		}
		DatabaseLocks locks = lookup(session.getDatabase());
		TenantLock lock = locks != null ? locks.tenants.get(tenant) : null;
		if (lock != null) {
			lock.releaseSession(session);
		}
	}

	/**
	 * @param session any session of a database
	 * @return how many sessions of the database wait to take a tenant's lock exclusive
	 */
	static int waiting(SessionLocal session) {
		DatabaseLocks locks = lookup(session.getDatabase());
		if (locks == null) {
			return 0;
		}
		int waiting = 0;
		for (TenantLock lock : locks.tenants.values()) {
			waiting += lock.waiting();
		}
		return waiting;
	}

	/**
	 * Reads a tenant's latest committed fence row, whatever the session's isolation level.
	 * @param session the reading session
	 * @param lock the tenant's lock, which remembers where its row is
	 * @param rowKey the row's {@code _ROWID_} if the caller knows it, else -1
	 * @return the row ({@link H2Fence#NONE} if the shard has no committed row for the tenant), or {@code null} if
	 * H2's engine classes cannot be read
	 */
	static H2Fence.Fence committedFence(SessionLocal session, TenantLock lock, long rowKey) {
		try {
			DatabaseLocks locks = locks(session.getDatabase());
			TableHandle fence = handle(session, locks, true);
			if (fence == null) {
				return null;
			}
			long key = rowKey >= 0 ? rowKey : lock.fenceRowKey;
			SearchRow row = key >= 0 ? committed(fence.map().get(key)) : null;
			if (row == null || !lock.tenant.equals(string(row.getValue(fence.tenantColumn())))) {
				// Not known yet, or no longer the tenant's row: find it (the fence table is one row per tenant).
				row = null;
				Cursor<Long, VersionedValue<SearchRow>> cursor = fence.map().cursor(null);
				while (cursor.hasNext()) {
					Long k = cursor.next();
					SearchRow candidate = committed(cursor.getValue());
					if (candidate != null && lock.tenant.equals(string(candidate.getValue(fence.tenantColumn())))) {
						row = candidate;
						key = k;
						break;
					}
				}
			}
			if (row == null) {
				return H2Fence.NONE;
			}
			lock.fenceRowKey = key;
			return new H2Fence.Fence(string(row.getValue(fence.stateColumn())),
					row.getValue(fence.minVersionColumn()).getLong());
		}
		catch (LinkageError | RuntimeException ex) {
			H2FenceSession.unusable(ex);
			return null;
		}
	}

	/**
	 * Whether a tenant's writes are captured, from the latest committed rows of {@code shard_capture}, remembered
	 * until the tenant's lock is next taken exclusive. Call only while holding the lock shared.
	 * @param session the reading session
	 * @param lock the tenant's lock
	 * @return whether captured, or {@code null} if H2's engine classes cannot be read
	 */
	static Boolean captured(SessionLocal session, TenantLock lock) {
		Boolean known = lock.captured;
		if (known != null) {
			return known;
		}
		try {
			TableHandle capture = handle(session, locks(session.getDatabase()), false);
			if (capture == null) {
				return null;
			}
			boolean found = false;
			Cursor<Long, VersionedValue<SearchRow>> cursor = capture.map().cursor(null);
			while (!found && cursor.hasNext()) {
				cursor.next();
				SearchRow row = committed(cursor.getValue());
				found = row != null && lock.tenant.equals(string(row.getValue(capture.tenantColumn())));
			}
			lock.captured = found;
			return found;
		}
		catch (LinkageError | RuntimeException ex) {
			H2FenceSession.unusable(ex);
			return null;
		}
	}

	/** The latest committed version of an entry of a primary index map, or {@code null} if none is committed. */
	private static SearchRow committed(VersionedValue<SearchRow> value) {
		if (value == null) {
			return null;
		}
		return value.getOperationId() == 0 ? value.getCurrentValue() : value.getCommittedValue();
	}

	private static TableHandle handle(SessionLocal session, DatabaseLocks locks, boolean fence) {
		TableHandle handle = fence ? locks.fence : locks.capture;
		if (handle != null && !handle.map().isClosed()) {
			return handle;
		}
		Schema schema = session.getDatabase().findSchema(session.getCurrentSchemaName());
		Table table = schema != null ? schema.findTableOrView(session, fence ? "SHARD_FENCE" : "SHARD_CAPTURE") : null;
		Index index = table != null ? table.getScanIndex(session) : null;
		if (!(index instanceof MVPrimaryIndex primary)) {
			return null;
		}
		@SuppressWarnings({ "unchecked", "rawtypes" })
		MVMap<Long, VersionedValue<SearchRow>> map = (MVMap) primary.getMVMap();
		handle = new TableHandle(map, table.getColumn("TENANT_ID").getColumnId(),
				fence ? table.getColumn("STATE").getColumnId() : -1,
				fence ? table.getColumn("MIN_VERSION").getColumnId() : -1);
		if (fence) {
			locks.fence = handle;
		}
		else {
			locks.capture = handle;
		}
		return handle;
	}

	private static DatabaseLocks locks(Database database) {
		DatabaseLocks locks = last;
		if (locks != null && locks.database.get() == database) {
			return locks;
		}
		locks = DATABASES.computeIfAbsent(database, DatabaseLocks::new);
		last = locks;
		return locks;
	}

	private static DatabaseLocks lookup(Database database) {
		DatabaseLocks locks = last;
		if (locks != null && locks.database.get() == database) {
			return locks;
		}
		return DATABASES.get(database);
	}

	private static String string(Value value) {
		return value == null || value == ValueNull.INSTANCE ? null : value.getString();
	}

}
