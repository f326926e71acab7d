/**
 * A nightly per-tenant job on {@link io.github.shardtenancy.TenantTasks}, scheduled with {@code @Scheduled}; off
 * unless {@code sample.nightly.enabled=true}.
 */
package io.github.shardtenancy.sample.nightly;
