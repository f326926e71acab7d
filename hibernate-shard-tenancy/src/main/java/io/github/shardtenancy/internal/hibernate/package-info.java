/**
 * Implementation: Hibernate integration (the multi-tenant connection provider, the tenant resolver, transaction
 * characteristics, the second-level cache eviction and the session integrators).
 */
@NullMarked
package io.github.shardtenancy.internal.hibernate;

import org.jspecify.annotations.NullMarked;
