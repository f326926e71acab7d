/**
 * The bound tenant for Micrometer context-propagation: {@link io.github.shardtenancy.micrometer.context.TenantThreadLocalAccessor}.
 */
package io.github.shardtenancy.micrometer.context;
