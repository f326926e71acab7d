package io.github.shardtenancy.boot;

/** Shard fence settings. Bound from {@code shard-tenancy.fence.*}, see {@link ShardTenancyProperties}. */
public class FenceProperties {

	/**
	 * Whether every tenant table of a PostgreSQL shard gets row-level security (its policy
	 * {@code shard_fence_tenant}, with {@code ENABLE} and {@code FORCE ROW LEVEL SECURITY}) when the fence is
	 * installed at start-up, so that a tenant's transaction reads only its tenant's rows, also with plain JDBC and
	 * native SQL that have no tenant predicate. It holds only when the shard's role is neither a superuser nor has
	 * {@code BYPASSRLS}. {@code false} drops the policy and disables row-level security on those tables. Changing
	 * it needs the tables' owner. H2 has no row-level security (logged at start-up). Default {@code true}.
	 */
	private boolean rowLevelSecurity = true;

	/**
	 * Whether start-up fails (a {@code ShardTenancyConfigurationException}) when row-level security is on but
	 * cannot hold on a shard because the shard's role is a superuser or has {@code BYPASSRLS} (PostgreSQL skips
	 * row-level security for both). {@code false} logs a warning naming the shard, the role and the remedy.
	 * Default {@code false}.
	 */
	private boolean requireRowLevelSecurity = false;

	public boolean isRowLevelSecurity() {
		return this.rowLevelSecurity;
	}

	public void setRowLevelSecurity(boolean rowLevelSecurity) {
		this.rowLevelSecurity = rowLevelSecurity;
	}

	public boolean isRequireRowLevelSecurity() {
		return this.requireRowLevelSecurity;
	}

	public void setRequireRowLevelSecurity(boolean requireRowLevelSecurity) {
		this.requireRowLevelSecurity = requireRowLevelSecurity;
	}

}
