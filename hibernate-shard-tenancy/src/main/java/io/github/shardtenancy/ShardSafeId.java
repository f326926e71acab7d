package io.github.shardtenancy;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

import io.github.shardtenancy.internal.ids.ShardSafeIdGenerator;
import org.hibernate.annotations.IdGeneratorType;

/**
 * Generates a {@code Long} (or {@code long}) identifier that is unique across every shard and every application
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
 * <p>The session factory must use the library's connection provider ({@link ShardTenancy#hibernateSettings()}, or the
 * Spring Boot starter); the lease is taken when the session factory is built.
 */
@Documented
@IdGeneratorType(ShardSafeIdGenerator.class)
@Retention(RetentionPolicy.RUNTIME)
@Target({ ElementType.FIELD, ElementType.METHOD })
public @interface ShardSafeId {

}
