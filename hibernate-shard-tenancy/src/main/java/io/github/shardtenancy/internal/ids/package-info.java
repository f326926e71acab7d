/**
 * Implementation: {@link io.github.shardtenancy.ShardSafeId} identifiers (the generator, its lease of a generator id
 * in the directory, and the Hibernate integration) and the start-up check of the tenant entities' id strategies.
 */
@NullMarked
package io.github.shardtenancy.internal.ids;

import org.jspecify.annotations.NullMarked;
