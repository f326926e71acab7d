package io.github.shardtenancy;

/**
 * What the library does, when a Hibernate session factory is built on a tenancy, with an entity that is neither
 * tenant data nor reference data: no {@code @TenantId} attribute, not {@link ReferenceData}, and mapped to a table
 * that is not a declared reference table ({@link ShardTenancyBuilder#referenceTables(java.util.Collection)},
 * {@code shard-tenancy.reference-tables}). Its rows live on the shards with no tenant: they are saved without one,
 * every tenant of the shard reads them, and a move leaves them behind. The usual cause is a table with a tenant column
 * whose attribute lacks {@code @TenantId}.
 */
public enum EntityCheck {

	/**
	 * Refuse to build the session factory ({@link ShardTenancyConfigurationException} naming each such entity and its
	 * table); the default.
	 */
	FAIL,

	/**
	 * Log one warning naming each such entity and its table, and go on: for an application that is migrating its
	 * entities to {@code @TenantId} one at a time.
	 */
	WARN,

	/** Check nothing. */
	OFF

}
