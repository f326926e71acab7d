package io.github.shardtenancy;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

import io.github.shardtenancy.internal.ids.ShardSafeIdGenerator;
import org.hibernate.annotations.IdGeneratorType;

/**
 * Generates a {@code Long} (or {@code long}), or an {@code Integer} (or {@code int}), identifier that is unique across every shard and every application
 * instance, without a round trip per insert, so that moving a tenant's rows to another shard never collides with the
 * rows already there:
 *
 * <pre>{@code
 * @Id @ShardSafeId
 * private Long id;
 * }</pre>
 *
 * <p>Each id is a time-ordered 64-bit number (see {@link IdSettings} for the layout and its limits): milliseconds since
 * {@link IdSettings#epoch() the epoch}, the generator id this instance leased from the directory (table
 * {@code shard_id_generator}, renewed in the background), and a sequence within the millisecond. The id is generated
 * in Java before the insert, so Hibernate can batch inserts (unlike {@code IDENTITY}).
 *
 * <p>The generator throws {@link IdGenerationException} rather than risk a duplicate: when this instance's lease
 * expired without renewal (the directory was unreachable for longer than {@link IdSettings#lease()}), or the clock
 * moved backwards by more than {@link IdSettings#maxClockBackwards()}.
 *
 * <p>On an {@code Integer} (or {@code int}) id, the id is instead the next of a block of ids this instance leased
 * from the counter of the entity's table in the directory (table {@code shard_id_block}, one row per table, keyed by
 * the root entity's table name in lower case, like a sequence per table; {@link IdSettings#integerBlockSize()} ids
 * per directory round trip): unique across every shard, tenant and instance among the ids of that table for the
 * directory's life, and never reused (a block an instance leased and did not use up is skipped). The counter starts
 * above the largest value of the entity's mapped id column already in the table on every shard (rows seeded by a
 * changelog, replicated reference rows, rows from an earlier {@code IDENTITY} or sequence): each instance reads
 * {@code SELECT MAX(id)} on every shard of its topology, under the library's maintenance mark (row-level security
 * hides no tenant's rows from it), and raises the counter, never lowering it: at the tenancy's start for every
 * counter the directory has, when the session factory is built, before its first block of a counter new to it, and
 * again for a shard registered at runtime ({@link TenantAdmin#registerShard}) once its changelogs ran. A shard
 * without the table counts as empty; a shard that cannot be read fails the first id
 * ({@link IdGenerationException}) rather than risk a duplicate. A fresh directory on empty tables numbers each
 * table 1, 2, 3... in the order ids are drawn, as {@code IDENTITY} in a fresh database would. The ceiling is per table: 2<sup>31</sup>-1 ids for all tenants of the
 * table together, after which the generator throws {@link IdGenerationException}. Prefer {@code Long} for tables
 * expected to grow past a few hundred million rows in all, or when ids must not need the directory once a block is
 * used up; {@code Integer} suits applications that have {@code Integer} ids already and would otherwise change their
 * type everywhere. {@code Integer} ids are not time-ordered.
 *
 * <p>The session factory must use the library's connection provider ({@link ShardTenancy#hibernateSettings()}, or the
 * Spring Boot starter); the lease is taken when the session factory is built.
 */
@Documented
@IdGeneratorType(ShardSafeIdGenerator.class)
@Retention(RetentionPolicy.RUNTIME)
@Target({ ElementType.FIELD, ElementType.METHOD })
public @interface ShardSafeId {

}
