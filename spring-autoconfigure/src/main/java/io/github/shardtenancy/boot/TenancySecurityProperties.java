package io.github.shardtenancy.boot;

import org.jspecify.annotations.Nullable;

/**
 * What the start checks of the shards' roles. Bound from {@code shard-tenancy.security.*}, see
 * {@link ShardTenancyProperties}.
 */
public class TenancySecurityProperties {

	/**
	 * Whether start-up fails (a {@code ShardTenancyConfigurationException}) when a shard's role has privileges that
	 * let SQL of a tenant's transaction reach other tenants' rows: on PostgreSQL a superuser or BYPASSRLS role, a
	 * member of one, CREATEROLE, the privilege to set session_replication_role, the owner of a tenant table on a shard
	 * without the DDL refusal's event trigger, or a role that may read the fence's secret (shard_fence_key); on H2 an
	 * administrator. False logs them in one warning per shard (on H2 at info). Default false.
	 */
	private boolean strict = false;

	/**
	 * Database role that work with no tenant bound (reads of reference tables) runs as on PostgreSQL, taken with SET
	 * LOCAL ROLE for each such transaction, so that the database refuses every table that is not a reference table.
	 * At start-up each shard's role creates it (NOLOGIN), grants it SELECT on the reference tables and takes
	 * membership where it may; what it may not is named in a warning, or refuses the start when strict. Empty to run
	 * such work as the shard's own role. Ignored on H2.
	 */
	private String referenceRole = "shard_tenancy_reference";

	public boolean isStrict() {
		return this.strict;
	}

	public void setStrict(boolean strict) {
		this.strict = strict;
	}

	public String getReferenceRole() {
		return this.referenceRole;
	}

	public void setReferenceRole(String referenceRole) {
		this.referenceRole = referenceRole;
	}

	/** @return the reference role, or {@code null} when it is empty (none) */
	@Nullable String referenceRoleOrNull() {
		return (this.referenceRole == null || this.referenceRole.isBlank()) ? null : this.referenceRole.strip();
	}

}
