/**
 * Tenant work on Spring's machinery: the tenant across threads in Spring executors and schedulers
 * ({@link io.github.shardtenancy.boot.task.TenantTaskDecorator}), and tenant task runs of the application's own code in
 * its transactions ({@link io.github.shardtenancy.boot.task.TransactionalTenantTasks}).
 */
@NullMarked
package io.github.shardtenancy.boot.task;

import org.jspecify.annotations.NullMarked;
