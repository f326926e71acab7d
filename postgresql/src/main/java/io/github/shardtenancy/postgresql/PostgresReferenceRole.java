package io.github.shardtenancy.postgresql;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;

import io.github.shardtenancy.spi.DialectSql;
import org.jspecify.annotations.Nullable;

/**
 * Makes the role of work with no tenant bound ready on one shard ({@link PostgresFenceDialect#prepareReferenceRole}):
 * a role that may read the reference tables and nothing else, which the shard's role takes with
 * {@code SET LOCAL ROLE} in every such transaction ({@code reference-read.sql}). What the shard's role may do it does,
 * each statement on its own (a refused one is reported, not fatal): {@code CREATE ROLE ... NOLOGIN},
 * {@code GRANT USAGE ON SCHEMA} and {@code GRANT SELECT} on the reference tables, {@code GRANT role TO CURRENT_USER}.
 * Not thread-safe; one use per preparation.
 */
final class PostgresReferenceRole {

	private static final String STATE = DialectSql.load(PostgresReferenceRole.class, "reference-role");

	private static final String MISSING = DialectSql.load(PostgresReferenceRole.class, "reference-role-missing");

	private static final String EXCESS = DialectSql.load(PostgresReferenceRole.class, "reference-role-excess");

	/** SQLSTATE {@code duplicate_object}: another instance created the role first. */
	private static final String DUPLICATE_OBJECT = "42710";

	/** SQLSTATE {@code unique_violation}: another instance's CREATE ROLE committed during this one. */
	private static final String UNIQUE_VIOLATION = "23505";

	private final Connection owner;

	private final Connection shard;

	private final String role;

	private final Collection<String> referenceTables;

	private final List<String> findings = new ArrayList<>();

	/** The shard's role, as an identifier. */
	private final String member;

	private PostgresReferenceRole(Connection owner, Connection shard, String role, Collection<String> referenceTables)
			throws SQLException {
		this.owner = owner;
		this.shard = shard;
		this.role = role;
		this.referenceTables = referenceTables;
		this.member = identifier(PostgresFenceDialect.currentUser(shard));
	}

	/**
	 * @param owner a connection of the role that creates and grants (the schema's owner), in auto-commit mode; may be
	 * {@code shard}
	 * @param shard a connection of the shard's role, in auto-commit mode
	 * @param role the role's name
	 * @param referenceTables the reference tables' names
	 * @return what keeps the role from being used, each with its remedy; empty if it is usable
	 * @throws SQLException on a database error other than a refused grant or creation
	 */
	static List<String> prepare(Connection owner, Connection shard, String role, Collection<String> referenceTables)
			throws SQLException {
		PostgresReferenceRole preparation = new PostgresReferenceRole(owner, shard, role, referenceTables);
		if (preparation.exists()) {
			preparation.membership();
			preparation.grants();
			preparation.excess();
		}
		return List.copyOf(preparation.findings);
	}

	private boolean exists() throws SQLException {
		boolean exists;
		boolean mayCreate;
		boolean bypass;
		try (PreparedStatement ps = this.owner.prepareStatement(STATE)) {
			ps.setString(1, this.role);
			try (ResultSet rs = ps.executeQuery()) {
				rs.next();
				exists = rs.getBoolean(1);
				mayCreate = rs.getBoolean(2);
				bypass = rs.getBoolean(3);
			}
		}
		if (bypass) {
			this.findings.add("the role " + this.role + " is a superuser or has BYPASSRLS (ALTER ROLE " + this.role
					+ " NOSUPERUSER NOBYPASSRLS)");
			return false;
		}
		if (exists) {
			return true;
		}
		String create = "CREATE ROLE " + identifier() + " NOLOGIN";
		if (mayCreate && (run(this.owner, create, DUPLICATE_OBJECT) || roleExists())) {
			return true;
		}
		this.findings.add("the role " + this.role + " does not exist (" + create + "; GRANT " + identifier()
				+ " TO " + this.member + ", as a role that may)");
		return false;
	}

	/** @return whether the role exists now (another instance may have created it at the same moment) */
	private boolean roleExists() throws SQLException {
		try (PreparedStatement ps = this.owner.prepareStatement("SELECT 1 FROM pg_roles WHERE rolname = ?")) {
			ps.setString(1, this.role);
			try (ResultSet rs = ps.executeQuery()) {
				return rs.next();
			}
		}
	}

	/**
	 * Takes the role for a rolled-back transaction of the shard's role; if that is refused, grants the shard's role
	 * membership (as the owner's connection may).
	 */
	private void membership() throws SQLException {
		if (mayTake()) {
			return;
		}
		String grant = "GRANT " + identifier() + " TO " + this.member;
		if (run(this.owner, grant, null) && mayTake()) {
			return;
		}
		this.findings.add("the shard's role " + this.member + " may not take the role " + this.role + " (" + grant
				+ ", as a role with ADMIN OPTION on it)");
	}

	private boolean mayTake() throws SQLException {
		this.shard.setAutoCommit(false);
		try (PreparedStatement ps = this.shard.prepareStatement("SELECT set_config('role', ?, true)")) {
			ps.setString(1, this.role);
			ps.execute();
			return true;
		}
		catch (SQLException ex) {
			if (PostgresFenceDialect.INSUFFICIENT_PRIVILEGE.equals(ex.getSQLState())) {
				return false;
			}
			throw ex;
		}
		finally {
			this.shard.rollback();
			this.shard.setAutoCommit(true);
		}
	}

	/**
	 * Runs the grants the role lacks, then reads again what it lacks: a grant by a role without the grant option is
	 * only a warning in PostgreSQL ("no privileges were granted"), not an error.
	 */
	private void grants() throws SQLException {
		for (String grant : rows(MISSING, this.referenceTables.toArray(), this.role)) {
			run(this.owner, grant, null);
		}
		for (String grant : rows(MISSING, this.referenceTables.toArray(), this.role)) {
			this.findings.add("the role " + this.role + " may not read a reference table (" + grant
					+ ", as the table's owner)");
		}
	}

	private void excess() throws SQLException {
		List<String> rows = new ArrayList<>();
		try (PreparedStatement ps = this.owner.prepareStatement(EXCESS)) {
			ps.setString(1, this.role);
			ps.setArray(2, this.owner.createArrayOf("text", this.referenceTables.toArray()));
			try (ResultSet rs = ps.executeQuery()) {
				while (rs.next()) {
					rows.add(rs.getString(1) + " (" + rs.getString(2) + ")");
				}
			}
		}
		if (!rows.isEmpty()) {
			this.findings.add("the role " + this.role + " may use relations that are not reference tables: "
					+ String.join(", ", rows) + " (REVOKE ALL ON each FROM " + identifier()
					+ ", and FROM PUBLIC where granted to PUBLIC)");
		}
	}

	private List<String> rows(String sql, Object[] tables, String role) throws SQLException {
		List<String> rows = new ArrayList<>();
		try (PreparedStatement ps = this.owner.prepareStatement(sql)) {
			ps.setArray(1, this.owner.createArrayOf("text", tables));
			ps.setString(2, role);
			try (ResultSet rs = ps.executeQuery()) {
				while (rs.next()) {
					rows.add(rs.getString(1));
				}
			}
		}
		return rows;
	}

	/**
	 * Runs a DDL statement or a grant in auto-commit mode.
	 * @return whether it ran, or failed with the SQLSTATE that counts as done; {@code false} if it was refused (a
	 * privilege or a concurrent creation)
	 */
	private static boolean run(Connection connection, String sql, @Nullable String doneState) throws SQLException {
		try (Statement s = connection.createStatement()) {
			s.execute(sql);
			return true;
		}
		catch (SQLException ex) {
			if (ex.getSQLState() != null && ex.getSQLState().equals(doneState)) {
				return true;
			}
			if (ex.getSQLState() != null
					&& (ex.getSQLState().startsWith("42") || ex.getSQLState().equals(UNIQUE_VIOLATION))) {
				return false;
			}
			throw ex;
		}
	}

	/** The role's name as a quoted identifier. */
	private String identifier() {
		return identifier(this.role);
	}

	/** A role's name as a quoted identifier: a name the library did not write is never SQL text. */
	private static String identifier(String name) {
		return "\"" + name.replace("\"", "\"\"") + "\"";
	}

}
