package io.github.shardtenancy;

import java.sql.Connection;
import java.util.ArrayDeque;

/**
 * The isolation level and read-only flag a transaction asked for, handed from whoever begins the transaction (the
 * Spring Boot module's {@code JpaDialect}) to the connection provider ({@link ShardTenancy#connectionProvider()}), which applies them to
 * the shard connection it borrows for that transaction, before the fence begin.
 *
 * <p>Why this is needed: the connection provider borrows the shard connection when Hibernate first needs it (at the
 * transaction's begin, or at its first statement when {@code hibernate.connection.provider_disables_autocommit} is on),
 * and releases it when the transaction ends. Whoever begins the transaction therefore has no connection to set the
 * isolation or read-only flag on; it {@linkplain #begin declares} them here instead, and the provider reads them when
 * it borrows.
 *
 * <p>The declarations form a stack per thread: a transaction begun inside another ({@code REQUIRES_NEW}) pushes its
 * own, and ends it before the outer transaction may borrow its connection, so the provider always applies the
 * innermost transaction's characteristics. Each {@link Declaration} must be {@linkplain Declaration#close() closed} on
 * the thread that declared it when its transaction ends (closing removes exactly that declaration, also out of order).
 * Code that borrows a connection outside any declared transaction (no declaration on the thread) gets the pool's
 * defaults; a connection borrowed while a declaration is open but for work outside its transaction (such as a
 * non-transactional {@code NOT_SUPPORTED} method called from a read-only transaction before that transaction's first
 * statement) gets the open declaration too.
 *
 * <p>Costs: none when nothing is declared. Read-only costs no round trip of its own on PostgreSQL (pgjdbc sends
 * {@code BEGIN READ ONLY} instead of {@code BEGIN}); an isolation level costs one round trip on PostgreSQL (pgjdbc
 * sends {@code SET SESSION CHARACTERISTICS AS TRANSACTION ISOLATION LEVEL ...}), and HikariCP sends one more to
 * reset it when the connection is returned. On H2, read-only sets a session variable that the fence's write check
 * reads (H2's {@code Connection.setReadOnly} is only a hint), see the fence dialect's {@code beginReadOnly}.
 *
 * <p>Thread-safety: every method affects only the calling thread.
 */
public final class TransactionCharacteristics {

	private static final ThreadLocal<ArrayDeque<Declaration>> DECLARED = new ThreadLocal<>();

	private TransactionCharacteristics() {
	}

	/**
	 * Declares the characteristics of a transaction that begins now on this thread.
	 * @param isolation a {@link Connection} isolation constant ({@link Connection#TRANSACTION_SERIALIZABLE} etc.), or
	 * {@code null} for the pool's default
	 * @param readOnly whether the transaction must not write
	 * @return the declaration, to close when the transaction ends; never {@code null}
	 * @throws IllegalArgumentException if the isolation is not one of the four JDBC isolation constants
	 */
	public static Declaration begin(Integer isolation, boolean readOnly) {
		if (isolation != null && isolation != Connection.TRANSACTION_READ_UNCOMMITTED
				&& isolation != Connection.TRANSACTION_READ_COMMITTED
				&& isolation != Connection.TRANSACTION_REPEATABLE_READ
				&& isolation != Connection.TRANSACTION_SERIALIZABLE) {
			throw new IllegalArgumentException("Not a JDBC isolation level: " + isolation);
		}
		ArrayDeque<Declaration> stack = DECLARED.get();
		if (stack == null) {
			stack = new ArrayDeque<>(2);
			DECLARED.set(stack);
		}
		Declaration declaration = new Declaration(isolation, readOnly);
		stack.addLast(declaration);
		return declaration;
	}

	/**
	 * @return the innermost declaration on this thread that is still open, or {@code null} if there is none
	 */
	public static Declaration current() {
		ArrayDeque<Declaration> stack = DECLARED.get();
		return stack != null ? stack.peekLast() : null;
	}

	/** One transaction's declared characteristics; close it when the transaction ends. Thread-confined. */
	public static final class Declaration implements AutoCloseable {

		private final Integer isolation;

		private final boolean readOnly;

		private Declaration(Integer isolation, boolean readOnly) {
			this.isolation = isolation;
			this.readOnly = readOnly;
		}

		/** @return the JDBC isolation constant, or {@code null} for the pool's default */
		public Integer isolation() {
			return this.isolation;
		}

		/** @return whether the transaction is read-only */
		public boolean readOnly() {
			return this.readOnly;
		}

		/** Removes this declaration from its thread's stack; idempotent. */
		@Override
		public void close() {
			ArrayDeque<Declaration> stack = DECLARED.get();
			if (stack != null) {
				stack.removeLastOccurrence(this);
				if (stack.isEmpty()) {
					DECLARED.remove();
				}
			}
		}

		@Override
		public String toString() {
			return "TransactionCharacteristics[isolation=" + this.isolation + ", readOnly=" + this.readOnly + "]";
		}

	}

}
