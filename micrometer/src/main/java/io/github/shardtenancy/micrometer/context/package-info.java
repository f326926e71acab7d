/**
 * The bound tenant for Micrometer context-propagation: {@link io.github.shardtenancy.micrometer.context.TenantThreadLocalAccessor}.
 */
@NullMarked
package io.github.shardtenancy.micrometer.context;

import org.jspecify.annotations.NullMarked;
