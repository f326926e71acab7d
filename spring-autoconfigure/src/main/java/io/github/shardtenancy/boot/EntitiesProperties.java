package io.github.shardtenancy.boot;

import io.github.shardtenancy.EntityCheck;

/**
 * The start-up check that every entity is tenant data or reference data. Bound from {@code shard-tenancy.entities.*},
 * see {@link ShardTenancyProperties}.
 */
public class EntitiesProperties {

	/**
	 * What the start does with an entity that has no {@code @TenantId} attribute, is not {@code @ReferenceData} and is
	 * mapped to a table not listed in {@code shard-tenancy.reference-tables}: its rows are saved with no tenant, read by
	 * every tenant of the shard and left behind by moves. Fail the start, warn (for applications that are migrating), or check nothing. Default fail.
	 */
	private EntityCheck check = EntityCheck.FAIL;

	public EntityCheck getCheck() {
		return this.check;
	}

	public void setCheck(EntityCheck check) {
		this.check = check;
	}

}
