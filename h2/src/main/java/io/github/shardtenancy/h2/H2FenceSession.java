package io.github.shardtenancy.h2;

import java.sql.Connection;
import java.sql.SQLException;

import org.h2.engine.Session;
import org.h2.engine.SessionLocal;
import org.h2.jdbc.JdbcConnection;
import org.h2.value.Value;
import org.h2.value.ValueBoolean;
import org.h2.value.ValueNull;

/**
 * What the fence can learn from, and set in, the H2 session it runs in without running a statement: the session
 * variables, and the session itself for the tenants' fence locks ({@link H2TenantLocks}).
 *
 * <p>This reads H2's engine classes ({@code SessionLocal}), which are public but not H2's documented API; it was
 * written against H2 2.4.240. If they cannot be reached (another H2 version, a connection to an H2 server in another
 * JVM), every method answers "unknown" and the fence takes its SQL path, which reads the variables and locks the
 * fence row with one statement per write: slower, never less safe. Thread-safe.
 */
final class H2FenceSession {

	/** The fence's session variables, as H2 names them. */
	static final String TENANT = "SHARD_TENANT";

	static final String VERSION = "SHARD_VERSION";

	static final String ROLE = "SHARD_ROLE";

	static final String READ_ONLY = "SHARD_READ_ONLY";

	/**
	 * The variables of one session: tenant and role ({@code null} if unset), version (-1 if unset) and whether the
	 * transaction was declared read-only.
	 */
	record Variables(String tenant, long version, String role, boolean readOnly) {
	}

	/** Cleared for good when H2's engine classes turn out to be missing or different. */
	private static volatile boolean usable = true;

	private H2FenceSession() {
	}

	/**
	 * @param conn the connection H2 passes to a trigger
	 * @return the session's fence variables, or {@code null} if they cannot be read without a statement
	 */
	static Variables variables(Connection conn) {
		return variables(session(conn));
	}

	/**
	 * @param session a session, or {@code null}
	 * @return the session's fence variables, or {@code null} if they cannot be read
	 */
	static Variables variables(SessionLocal session) {
		if (session == null) {
			return null;
		}
		try {
			Value version = session.getVariable(VERSION);
			Value readOnly = session.getVariable(READ_ONLY);
			return new Variables(string(session.getVariable(TENANT)),
					version == ValueNull.INSTANCE ? -1 : version.getLong(), string(session.getVariable(ROLE)),
					readOnly != ValueNull.INSTANCE && readOnly.getBoolean());
		}
		catch (LinkageError | RuntimeException ex) {
			unusable(ex);
			return null;
		}
	}

	/**
	 * Binds a routed session in process, without a statement: tenant, version and no role (the read-only mark, set
	 * before the begin, is kept), as {@code bind.sql} does. The values are made by the caller
	 * ({@link H2TenantLocks.TenantLock} keeps them per tenant, so that a begin does not look them up in H2's value
	 * cache, which every thread shares).
	 * @param session the session, used by the calling thread only
	 * @param tenant the tenant as an H2 {@code VARCHAR}
	 * @param version the route's directory version as an H2 {@code BIGINT}
	 */
	static void bind(SessionLocal session, Value tenant, Value version) {
		session.setVariable(TENANT, tenant);
		session.setVariable(VERSION, version);
		session.setVariable(ROLE, ValueNull.INSTANCE);
	}

	/**
	 * Marks the session's transaction read-only in process, as {@code read-only.sql} does.
	 * @param session the session, used by the calling thread only
	 * @return whether it was marked ({@code false}: use SQL)
	 */
	static boolean markReadOnly(SessionLocal session) {
		return inProcess(() -> session.setVariable(READ_ONLY, ValueBoolean.TRUE));
	}

	/**
	 * Unbinds the route of a session in process, keeping a read-only mark, as {@code unbind.sql} does.
	 * @param session the session, used by the calling thread only
	 */
	static void unbind(SessionLocal session) {
		session.setVariable(TENANT, ValueNull.INSTANCE);
		session.setVariable(VERSION, ValueNull.INSTANCE);
		session.setVariable(ROLE, ValueNull.INSTANCE);
	}

	/**
	 * Clears the fence's variables of a session in process, without a statement.
	 * @param session the session, used by the calling thread only
	 * @return whether they were cleared ({@code false}: use SQL)
	 */
	static boolean clear(SessionLocal session) {
		return inProcess(() -> {
			unbind(session);
			session.setVariable(READ_ONLY, ValueNull.INSTANCE);
		});
	}

	/** Runs a change of a session's variables; {@code false} if H2's engine classes turned out unusable. */
	private static boolean inProcess(Runnable change) {
		try {
			change.run();
			return true;
		}
		catch (LinkageError | RuntimeException ex) {
			unusable(ex);
			return false;
		}
	}

	/**
	 * @param conn the connection H2 passes to a trigger (H2's own)
	 * @return its session if it runs in this JVM and H2's engine classes can be read, else {@code null}
	 */
	static SessionLocal session(Connection conn) {
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
			unusable(ex);
			return null;
		}
	}

	/**
	 * @param connection an application's connection to H2, possibly wrapped by a pool
	 * @return its session if it runs in this JVM and H2's engine classes can be read, else {@code null}
	 * @throws SQLException if the connection cannot be unwrapped
	 */
	static SessionLocal sessionOf(Connection connection) throws SQLException {
		if (!usable) {
			return null;
		}
		if (connection instanceof JdbcConnection) {
			return session(connection);
		}
		return connection.isWrapperFor(JdbcConnection.class) ? session(connection.unwrap(JdbcConnection.class)) : null;
	}

	/** Remembers that H2's engine classes cannot be used here: every later call takes the SQL path. */
	static void unusable(Throwable cause) {
		if (cause instanceof LinkageError || cause instanceof ClassCastException) {
			usable = false;
		}
	}

	private static String string(Value value) {
		return value == null || value == ValueNull.INSTANCE ? null : value.getString();
	}

}
