/**
 * A nightly per-tenant job on {@link io.github.shardtenancy.boot.task.TransactionalTenantTasks} (the application's
 * own service, called per tenant in the application's transaction), scheduled with {@code @Scheduled}; off
 * unless {@code sample.nightly.enabled=true}.
 */
package io.github.shardtenancy.sample.nightly;
