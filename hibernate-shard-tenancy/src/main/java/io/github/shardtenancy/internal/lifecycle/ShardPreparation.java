package io.github.shardtenancy.internal.lifecycle;

import java.sql.Connection;
import java.sql.DatabaseMetaData;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.SQLFeatureNotSupportedException;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.function.BiConsumer;
import java.util.function.Function;
import java.util.function.Supplier;

import javax.sql.DataSource;

import io.github.shardtenancy.IdCheck;
import io.github.shardtenancy.ShardTenancyConfigurationException;
import io.github.shardtenancy.TenantTable;
import io.github.shardtenancy.internal.ids.IdStrategyIntegrator;
import io.github.shardtenancy.internal.move.TablePlan;
import io.github.shardtenancy.internal.tasks.DefaultTenantTasks;
import org.jspecify.annotations.Nullable;
import io.github.shardtenancy.internal.topology.Topology;
import io.github.shardtenancy.spi.FenceDialect;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Prepares shards for the tenant tables: installs the fence's per-row write check (and, where the dialect has them,
 * its TRUNCATE refusal and, when switched on, row-level security) and the online mover's change capture on every
 * tenant table. With row-level security on (the default), it then checks that the shard's role is subject to it (not
 * a superuser, no {@code BYPASSRLS}), and warns once per shard or fails when it is not. Preparing every shard
 * ({@link #prepareAll}) also logs once, at INFO, which shards have no row-level security at all (H2), since plain JDBC
 * and native SQL read every tenant's rows there. Idempotent. Thread-safe.
 *
 * <p>Before that it reads the tenant tables' columns ({@link DatabaseMetaData#getColumns}) and, as the
 * {@link IdCheck} says, refuses (or warns about) a column the database generates values for: an identity, a serial or
 * {@code AUTO_INCREMENT} column ({@code IS_AUTOINCREMENT}), or a default drawn from a sequence ({@code nextval(...)},
 * {@code NEXT VALUE FOR ...}). Each shard counts on its own, so a moved tenant's keys collide with the target
 * shard's, as for the entities {@link IdStrategyIntegrator} refuses.
 *
 * <p>Failures are {@link ShardTenancyConfigurationException}s naming the setting of the {@code ShardTenancy} builder
 * that concerns them: {@value #TABLES}, {@value #ROW_LEVEL_SECURITY} or {@value #REQUIRE_ROW_LEVEL_SECURITY}; a
 * generated key names {@value IdStrategyIntegrator#SETTING}, as the entity check does.
 */
public final class ShardPreparation {

	/** The setting named by a failure to install on a tenant table. */
	public static final String TABLES = "tenantTables";

	/**
	 * The setting named when a shard's role cannot be read for the row-level security check, or may not switch
	 * row-level security on (not the table's owner).
	 */
	public static final String ROW_LEVEL_SECURITY = "rowLevelSecurity";

	/** The setting named when a shard's role skips row-level security and it is required. */
	public static final String REQUIRE_ROW_LEVEL_SECURITY = "requireRowLevelSecurity";

	/** The setting named when the owner of a shard cannot grant the shard's role its privileges. */
	public static final String OWNERS = "shardOwners";

	/** The setting named when the role of work with no tenant bound cannot be prepared. */
	public static final String REFERENCE_ROLE = "referenceRole";

	/** The setting named when a shard's role has more privileges than it needs and strict security is on. */
	public static final String STRICT_SECURITY = "strictSecurity";

	/** SQLSTATE {@code insufficient_privilege}: PostgreSQL's "must be owner of table" among others. */
	private static final String INSUFFICIENT_PRIVILEGE = "42501";

	private static final Logger log = LoggerFactory.getLogger(ShardPreparation.class);

	private final Supplier<List<TenantTable>> tables;

	private final boolean rowLevelSecurity;

	private final boolean requireRowLevelSecurity;

	private final boolean strictSecurity;

	private final boolean capture;

	private final IdCheck idCheck;

	private @Nullable String referenceRole;

	private Supplier<Set<String>> referenceTables = Set::of;

	private BiConsumer<String, @Nullable String> referenceRoleUse = (shard, role) -> {
	};

	private Function<String, @Nullable DataSource> owners = (shardId) -> null;

	/**
	 * @param tables the tenant tables, asked on each preparation
	 * @param rowLevelSecurity whether the write check also switches row-level security on (PostgreSQL)
	 * @param requireRowLevelSecurity whether a shard role that skips row-level security fails the preparation (else
	 * it is logged as a warning)
	 * @param strictSecurity whether a shard role with more privileges than it needs, or one that skips row-level
	 * security, fails the preparation (else each is logged as a warning)
	 * @param capture whether the online mover's change capture is installed too
	 * @param idCheck what a tenant table column whose values the database generates does: fail the preparation,
	 * warn, or nothing
	 */
	public ShardPreparation(Supplier<List<TenantTable>> tables, boolean rowLevelSecurity,
			boolean requireRowLevelSecurity, boolean strictSecurity, boolean capture, IdCheck idCheck) {
		this.tables = tables;
		this.rowLevelSecurity = rowLevelSecurity;
		this.requireRowLevelSecurity = requireRowLevelSecurity;
		this.strictSecurity = strictSecurity;
		this.capture = capture;
		this.idCheck = idCheck;
	}

	/**
	 * Makes each prepared shard's role for work with no tenant bound ready ({@link FenceDialect#prepareReferenceRole})
	 * and tells which role to use; without this call, no such role is prepared.
	 * @param role the role's name, or {@code null} for none: such work then runs as the shard's own role
	 * @param tables the reference tables, lower case; asked on each preparation
	 * @param use told, per prepared shard, the role its work with no tenant bound runs as, or {@code null} for its
	 * own (none is set, or it is not usable; the preparation warns, or fails with strict security)
	 */
	public void referenceRole(@Nullable String role, Supplier<Set<String>> tables,
			BiConsumer<String, @Nullable String> use) {
		this.referenceRole = role;
		this.referenceTables = tables;
		this.referenceRoleUse = use;
	}

	/**
	 * Installs with the owners' connections where there are owners: the fence and the capture, the reference role's
	 * grants; and grants each shard's role what it needs first ({@link FenceDialect#grantApplicationRole}).
	 * @param owners per shard id, a {@link DataSource} connecting as the role that owns the shard's schema, or
	 * {@code null} for the shard's own pool
	 */
	public void owners(Function<String, @Nullable DataSource> owners) {
		this.owners = owners;
	}

	/** @return the pool that installs on the shard: its owner's, or its own */
	private DataSource installer(Topology.Shard shard) {
		DataSource owner = this.owners.apply(shard.id());
		return owner != null ? owner : shard.dataSource();
	}

	/**
	 * Prepares every shard of a topology, in shard id order, then logs once, at INFO, the shards whose database has no
	 * row-level security (H2), if there are tenant tables: an INFO rather than a warning because it holds for every
	 * H2 shard whatever the configuration, so no setting could answer a warning, while the fact matters to code that
	 * reads with plain JDBC.
	 * @param topology the shards
	 * @throws ShardTenancyConfigurationException as {@link #prepare(Topology.Shard)}
	 */
	public void prepareAll(Topology topology) {
		List<String> withoutRowLevelSecurity = new ArrayList<>();
		for (String shardId : topology.shardIds().stream().sorted().toList()) {
			Topology.Shard shard = topology.shard(shardId);
			prepare(shard);
			if (!shard.dialect().hasRowLevelSecurity()) {
				withoutRowLevelSecurity.add(shardId);
			}
		}
		if (!withoutRowLevelSecurity.isEmpty() && !this.tables.get().isEmpty()) {
			log.info("Shard(s) {} have no row-level security (H2): plain JDBC and native SQL of a tenant read every "
					+ "tenant's rows of the tenant tables unless their SQL names the tenant (Hibernate's @TenantId "
					+ "filters only Hibernate's own queries); the fence still refuses writes of other tenants' rows",
					withoutRowLevelSecurity);
		}
	}

	/**
	 * Prepares one shard.
	 * @param shard the shard
	 * @throws ShardTenancyConfigurationException if a check or the capture cannot be installed on a table (a missing
	 * table or column, a table without a primary key for the capture, an unreachable shard), naming the table and the
	 * shard; with {@link IdCheck#FAIL}, if a tenant table has a column the database generates values for; with
	 * row-level security on, if the shard's role may not switch it on (not the table's owner: setting
	 * {@value #ROW_LEVEL_SECURITY}); or, with required row-level security, if the shard's role skips it
	 */
	public void prepare(Topology.Shard shard) {
		List<TenantTable> tenantTables = this.tables.get();
		grantApplicationRole(shard);
		if (this.idCheck != IdCheck.OFF && !tenantTables.isEmpty()) {
			checkGeneratedKeys(shard, tenantTables);
		}
		for (TenantTable table : tenantTables) {
			try (Connection c = installer(shard).getConnection()) {
				c.setAutoCommit(true);
				shard.dialect().installWriteCheck(c, table.table(), table.tenantColumn(), this.rowLevelSecurity);
			}
			catch (SQLException ex) {
				if (INSUFFICIENT_PRIVILEGE.equals(ex.getSQLState()) && shard.dialect().hasRowLevelSecurity()
						&& table.table().equalsIgnoreCase(DefaultTenantTasks.MARKS.table())
						&& marksAsInstalled(shard, table)) {
					continue;
				}
				if (this.rowLevelSecurity && INSUFFICIENT_PRIVILEGE.equals(ex.getSQLState())
						&& shard.dialect().hasRowLevelSecurity()) {
					throw new ShardTenancyConfigurationException(ROW_LEVEL_SECURITY, "Cannot install the fence "
							+ "write check with row-level security on table " + table.table() + " of shard '"
							+ shard.id() + "': " + ex.getMessage() + "; switching row-level security on needs the "
							+ "table's owner: connect the shard as the role that owns the tenant tables, without "
							+ "SUPERUSER and BYPASSRLS, or start once as the owner, or switch row-level security off "
							+ "(shard-tenancy.fence.row-level-security=false, "
							+ "ShardTenancyBuilder.rowLevelSecurity(false))", shard.id());
				}
				throw new ShardTenancyConfigurationException(TABLES, "Cannot install the fence write check on table "
						+ table.table() + " (tenant column " + table.tenantColumn() + ") of shard '" + shard.id()
						+ "': " + ex.getMessage() + "; check that the shard's schema has it"
						+ (this.rowLevelSecurity && shard.dialect().hasRowLevelSecurity()
								? " and that the shard's role owns it (row-level security is switched on by its "
										+ "owner; or switch row-level security off)" : ""),
						shard.id());
			}
		}
		log.debug("Fence write check installed on {} table(s) of shard '{}'", tenantTables.size(), shard.id());
		if (this.rowLevelSecurity && !tenantTables.isEmpty()) {
			checkRowLevelSecurity(shard);
		}
		checkPrivileges(shard, tenantTables);
		prepareReferenceRole(shard);
		if (this.capture) {
			installCapture(shard, tenantTables);
		}
	}

	/**
	 * The library's completion marks when the shard's role does not own them and their row-level security is not as
	 * configured: the migration installs it on them (shard-tasks.xml, tasks-pg-1), and only their owner may change
	 * it. The write check is installed leaving row-level security as it is: the library reads the marks as
	 * maintenance and writes them with the tenant bound, so either way they are read and written as before.
	 * @return whether the write check is installed
	 */
	private boolean marksAsInstalled(Topology.Shard shard, TenantTable marks) {
		try (Connection c = installer(shard).getConnection()) {
			c.setAutoCommit(true);
			shard.dialect().installWriteCheck(c, marks.table(), marks.tenantColumn(), !this.rowLevelSecurity);
		}
		catch (SQLException ex) {
			return false;
		}
		log.info("Row-level security of the completion marks ({}) of shard '{}' is {}, as installed by their owner: "
				+ "the shard's role may not change it", marks.table(), shard.id(),
				this.rowLevelSecurity ? "off" : "on");
		return true;
	}

	private void checkGeneratedKeys(Topology.Shard shard, List<TenantTable> tenantTables) {
		List<String> generated = new ArrayList<>();
		try (Connection c = shard.dataSource().getConnection()) {
			DatabaseMetaData meta = c.getMetaData();
			for (TenantTable table : tenantTables) {
				int dot = table.table().indexOf('.');
				// An unqualified table: the current schema's (not a table of the same name in another schema)
				String schema = dot < 0 ? c.getSchema() : TablePlan.normalise(meta, table.table().substring(0, dot));
				try (ResultSet rs = meta.getColumns(null, schema, TablePlan.normalise(meta, table.table()), null)) {
					while (rs.next()) {
						String how = generation(rs.getString("IS_AUTOINCREMENT"), rs.getString("COLUMN_DEF"));
						if (how != null) {
							generated.add(table.table() + "." + rs.getString("COLUMN_NAME")
									+ " (" + how + ")");
						}
					}
				}
			}
		}
		catch (SQLException ex) {
			throw new ShardTenancyConfigurationException(TABLES, "Cannot read the columns of the tenant tables of "
					+ "shard '" + shard.id() + "': " + ex.getMessage(), shard.id());
		}
		if (generated.isEmpty()) {
			return;
		}
		String message = "Tenant table " + (generated.size() == 1 ? "column " : "columns ")
				+ String.join(", ", generated) + " of shard '" + shard.id() + "' "
				+ (generated.size() == 1 ? "gets its" : "get their") + " values from the database: each shard counts "
				+ "on its own, so a tenant moved to another shard brings keys the rows already there may use, and the "
				+ "move fails on the primary key. Draw the keys in Java, unique across shards, and name them in the "
				+ "INSERT: ShardTenancy.nextId() (long) or ShardTenancy.nextIntId(\"<table>\") (int), or "
				+ "@io.github.shardtenancy.ShardSafeId on the entity's id; then drop the column's identity or default "
				+ "(existing rows keep their keys). To start anyway while migrating, set " + IdStrategyIntegrator.SETTING
				+ "=warn (builder: idCheck(IdCheck.WARN))";
		if (this.idCheck == IdCheck.FAIL) {
			throw new ShardTenancyConfigurationException(IdStrategyIntegrator.SETTING, message, shard.id());
		}
		log.warn(message);
	}

	/**
	 * @param autoIncrement the column's {@code IS_AUTOINCREMENT}: {@code YES} for an identity, serial or
	 * {@code AUTO_INCREMENT} column (pgjdbc also for a {@code nextval} default)
	 * @param columnDefault the column's {@code COLUMN_DEF}
	 * @return how the database generates the column's values, or {@code null} if it does not
	 */
	static @Nullable String generation(@Nullable String autoIncrement, @Nullable String columnDefault) {
		if (columnDefault != null) {
			String lower = columnDefault.toLowerCase(Locale.ROOT);
			if (lower.contains("nextval(") || lower.contains("next value for")) {
				return "default " + columnDefault;
			}
		}
		return "YES".equalsIgnoreCase(autoIncrement) ? "identity" : null;
	}

	private void installCapture(Topology.Shard shard, List<TenantTable> tenantTables) {
		for (TenantTable table : tenantTables) {
			try (Connection c = installer(shard).getConnection()) {
				c.setAutoCommit(true);
				shard.dialect().installChangeCapture(c, table.table(), table.tenantColumn());
			}
			catch (SQLFeatureNotSupportedException ex) {
				log.info("Shard '{}' has no change capture for the online mover: {}", shard.id(), ex.getMessage());
				return;
			}
			catch (SQLException ex) {
				throw new ShardTenancyConfigurationException(TABLES, "Cannot install the online mover's change "
						+ "capture on table " + table.table() + " (tenant column " + table.tenantColumn()
						+ ") of shard '" + shard.id() + "': " + ex.getMessage() + "; a tenant table needs a primary "
						+ "key (or switch the installation of the change capture off)", shard.id());
			}
		}
	}

	private void checkRowLevelSecurity(Topology.Shard shard) {
		String bypass;
		try (Connection c = shard.dataSource().getConnection()) {
			bypass = shard.dialect().rowLevelSecurityBypass(c);
		}
		catch (SQLException ex) {
			throw new ShardTenancyConfigurationException(ROW_LEVEL_SECURITY,
					"Cannot read the role of shard '" + shard.id() + "': " + ex.getMessage(), shard.id());
		}
		if (bypass == null) {
			return;
		}
		String message = "Row-level security of the tenant tables does not hold on shard '" + shard.id() + "': "
				+ bypass + ", and PostgreSQL never applies row-level security to superusers and BYPASSRLS roles, so "
				+ "a tenant's plain JDBC and native SQL read every tenant's rows (Hibernate's @TenantId filters only "
				+ "Hibernate's own queries); connect the shard as a role without SUPERUSER and BYPASSRLS (CREATE ROLE "
				+ "... NOSUPERUSER NOBYPASSRLS, for example the role that owns the tenant tables; see "
				+ "docs/postgresql.md, Role requirements)";
		if (this.requireRowLevelSecurity || this.strictSecurity) {
			throw new ShardTenancyConfigurationException(
					this.requireRowLevelSecurity ? REQUIRE_ROW_LEVEL_SECURITY : STRICT_SECURITY, message, shard.id());
		}
		log.warn("{}; or set shard-tenancy.fence.require-row-level-security=true "
				+ "(ShardTenancyBuilder.requireRowLevelSecurity) to refuse to start instead", message);
	}

	/**
	 * Names every privilege of the shard's role beyond what it needs ({@link FenceDialect#excessPrivileges}), in one
	 * warning, or fails the preparation with strict security.
	 */
	private void checkPrivileges(Topology.Shard shard, List<TenantTable> tenantTables) {
		List<String> excess;
		String role;
		try (Connection c = shard.dataSource().getConnection()) {
			excess = shard.dialect()
				.excessPrivileges(c, tenantTables.stream().map(TenantTable::table).toList());
			role = c.getMetaData().getUserName();
		}
		catch (SQLException ex) {
			throw new ShardTenancyConfigurationException(STRICT_SECURITY,
					"Cannot read the privileges of the role of shard '" + shard.id() + "': " + ex.getMessage(),
					shard.id());
		}
		if (excess.isEmpty()) {
			return;
		}
		String message = "The role " + role + " of shard '" + shard.id() + "' has more privileges than an "
				+ "application's shard role needs: it " + String.join("; it ", excess)
				+ " (docs/security.md)";
		if (this.strictSecurity) {
			throw new ShardTenancyConfigurationException(STRICT_SECURITY, message, shard.id());
		}
		if (!shard.dialect().hasRowLevelSecurity()) {
			// H2, a development database with nothing database-enforced between tenants anyway: said, not warned.
			log.info("{}", message);
			return;
		}
		log.warn("{}; set shard-tenancy.security.strict=true (ShardTenancyBuilder.strictSecurity) to refuse to start "
				+ "instead", message);
	}

	/**
	 * Makes the shard's role for work with no tenant bound ready and tells the connection provider to use it; where it
	 * is not usable, says why in one warning (such work then runs as the shard's own role) or, with strict security,
	 * fails the preparation.
	 */
	private void prepareReferenceRole(Topology.Shard shard) {
		String role = this.referenceRole;
		Set<String> tables = this.referenceTables.get();
		if (role == null || tables.isEmpty()) {
			this.referenceRoleUse.accept(shard.id(), null);
			return;
		}
		List<String> findings;
		DataSource owner = this.owners.apply(shard.id());
		try (Connection c = shard.dataSource().getConnection();
				Connection o = owner != null ? owner.getConnection() : null) {
			c.setAutoCommit(true);
			if (o != null) {
				o.setAutoCommit(true);
			}
			findings = shard.dialect().prepareReferenceRole(o != null ? o : c, c, role, tables);
		}
		catch (SQLException ex) {
			throw new ShardTenancyConfigurationException(REFERENCE_ROLE, "Cannot prepare the role " + role + " for "
					+ "work with no tenant bound on shard '" + shard.id() + "': " + ex.getMessage(), shard.id());
		}
		if (findings == null || findings.isEmpty()) {
			this.referenceRoleUse.accept(shard.id(), findings == null ? null : role);
			return;
		}
		this.referenceRoleUse.accept(shard.id(), null);
		String message = "Work with no tenant bound on shard '" + shard.id() + "' runs as the shard's own role, "
				+ "whose privileges the database then checks, instead of the role " + role + ", which may read the "
				+ "reference tables only: " + String.join("; ", findings) + " (docs/security.md)";
		if (this.strictSecurity) {
			throw new ShardTenancyConfigurationException(STRICT_SECURITY, message, shard.id());
		}
		log.warn("{}; set shard-tenancy.security.strict=true (ShardTenancyBuilder.strictSecurity) to refuse to start "
				+ "instead, or shard-tenancy.security.reference-role to another role or to nothing "
				+ "(ShardTenancyBuilder.referenceRole)", message);
	}

	/**
	 * With an owner for the shard, grants the shard's role (the user of its own pool) what it needs on the tables the
	 * owner's migrations created.
	 */
	private void grantApplicationRole(Topology.Shard shard) {
		DataSource owner = this.owners.apply(shard.id());
		if (owner == null) {
			return;
		}
		try (Connection c = shard.dataSource().getConnection(); Connection o = owner.getConnection()) {
			o.setAutoCommit(true);
			c.setAutoCommit(true);
			shard.dialect().grantApplicationRole(o, c);
		}
		catch (SQLException ex) {
			throw new ShardTenancyConfigurationException(OWNERS, "Cannot grant the role of shard '" + shard.id()
					+ "' its privileges as the shard's owner: " + ex.getMessage(), shard.id());
		}
	}

}
