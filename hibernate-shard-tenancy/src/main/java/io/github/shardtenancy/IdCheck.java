package io.github.shardtenancy;

/**
 * What the library does, when a Hibernate session factory is built on a tenancy, with a tenant entity (one with a
 * {@code @TenantId} attribute) whose identifier strategy would collide after a move: {@code IDENTITY},
 * {@code SEQUENCE}, {@code TABLE}, {@code increment}, or any identifier the database generates. Each shard has its own
 * counters, so the same id is handed out on two shards, and moving a tenant's rows next to another tenant's fails on
 * the primary key (or, without one, mixes rows). Assigned ids, UUIDs and {@link ShardSafeId} are accepted. The same
 * setting governs the check of the tenant tables when the shards are prepared ({@link ShardTenancy#prepareShards()}):
 * a column whose values the database generates (identity, serial, {@code AUTO_INCREMENT}, a sequence default).
 */
public enum IdCheck {

	/** Refuse to build the session factory, or to prepare the shard ({@link ShardTenancyConfigurationException}); the default. */
	FAIL,

	/** Log a warning naming each such entity or column, and go on; for applications that are migrating. */
	WARN,

	/** Check nothing. */
	OFF

}
