/**
 * The tenant across threads in Spring executors and schedulers:
 * {@link io.github.shardtenancy.boot.task.TenantTaskDecorator}.
 */
package io.github.shardtenancy.boot.task;
