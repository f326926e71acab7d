package io.github.shardtenancy;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * Marks an entity as reference data (lookup data every tenant reads, such as types or categories), as Citus reference
 * tables are: its table exists with the same rows on every shard, so tenant tables may reference it by foreign key
 * and joins stay on one shard. The entity has no {@code @TenantId}; moves never copy or delete its rows.
 *
 * <p>Reads need no tenant: with none bound they go to any reachable shard whose reference data is current, read-only;
 * with one bound, to its shard. Writes go through {@link ReferenceTables#write(java.util.List)} only, which applies them
 * to every ACTIVE shard. {@link HibernateTenantTables#referenceTables(org.hibernate.SessionFactory)} finds the tables
 * of annotated entities; tables without an entity are declared on the builder
 * ({@link ShardTenancyBuilder#referenceTables(java.util.Collection)}).
 */
@Documented
@Retention(RetentionPolicy.RUNTIME)
@Target(ElementType.TYPE)
public @interface ReferenceData {

}
