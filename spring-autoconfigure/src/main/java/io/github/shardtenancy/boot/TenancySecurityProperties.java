package io.github.shardtenancy.boot;

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

	public boolean isStrict() {
		return this.strict;
	}

	public void setStrict(boolean strict) {
		this.strict = strict;
	}

}
